/** The Luhn (mod 10) check digit of `digits`, the number without its check digit (ISO/IEC 7812-1). */
export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  // Counting from the right of the number without its check digit, every first, third, ... digit doubles.
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether `pan` (digits only) ends with its Luhn check digit. */
export const isLuhnValid = (pan: string): boolean =>
  /^\d{2,19}$/.test(pan) && luhnCheckDigit(pan.slice(0, -1)) === Number(pan[pan.length - 1]);
