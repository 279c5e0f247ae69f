// ---------------------------------------------------------------------------------------------------
// ISO 4217: the one table of currencies of the platform (the API's codes, the simulator's acquirers, ISO 8583
// DE-049 and the 3-D Secure `purchaseCurrency`, which are numeric, the program's fx rates). Alphabetic code,
// numeric code and minor units (the "exponent": how many decimals an amount of the currency carries).
//
// Source: ISO 4217 list one ("Current currency & funds code list", the maintenance agency SIX's
// list_one.xml) as published 2024-06-25: every entry that has minor units, funds codes included (marked);
// the entries without minor units (precious metals XAU.., bond units XBA.., XDR, XSU, XUA, the testing code
// XTS, XXX) are no currency an amount can be paid in and are left out. Amendments after that publication are
// not in it: update from the agency's list (the lines below are generated from its XML, one per code).
//
// Hand-written rather than a dependency: the maintained npm packages carry countries and names around the
// three columns (currency-codes: 2 MB unpacked, two 0.0.x dependencies, data of the same 2024-06-25 list),
// and ICU's (`Intl`) digits are CLDR's display digits, not ISO 4217's minor units (Node 20 answers 0 for HUF
// and IDR, which ISO 4217 gives 2).
// ---------------------------------------------------------------------------------------------------

/** One currency of ISO 4217 list one. */
export interface Iso4217Currency {
  /** The alphabetic code, `EUR`. */
  code: string;
  /** The numeric code, three digits, `978` (ISO 8583 DE-049, EMV 3DS `purchaseCurrency`). */
  numeric: string;
  /** Decimals of an amount: 2 for EUR, 0 for JPY, 3 for KWD. */
  minorUnits: number;
  /** A funds code (`CLF`, `USN`): a unit of account, not a currency banknotes come in. */
  fund: boolean;
}

type Row = readonly [code: string, numeric: string, minorUnits: number, fund?: 'fund'];

// prettier-ignore
const LIST_ONE: readonly Row[] = [
  ['AED', '784', 2], // UAE Dirham
  ['AFN', '971', 2], // Afghani
  ['ALL', '008', 2], // Lek
  ['AMD', '051', 2], // Armenian Dram
  ['ANG', '532', 2], // Netherlands Antillean Guilder
  ['AOA', '973', 2], // Kwanza
  ['ARS', '032', 2], // Argentine Peso
  ['AUD', '036', 2], // Australian Dollar
  ['AWG', '533', 2], // Aruban Florin
  ['AZN', '944', 2], // Azerbaijan Manat
  ['BAM', '977', 2], // Convertible Mark
  ['BBD', '052', 2], // Barbados Dollar
  ['BDT', '050', 2], // Taka
  ['BGN', '975', 2], // Bulgarian Lev
  ['BHD', '048', 3], // Bahraini Dinar
  ['BIF', '108', 0], // Burundi Franc
  ['BMD', '060', 2], // Bermudian Dollar
  ['BND', '096', 2], // Brunei Dollar
  ['BOB', '068', 2], // Boliviano
  ['BOV', '984', 2, 'fund'], // Mvdol
  ['BRL', '986', 2], // Brazilian Real
  ['BSD', '044', 2], // Bahamian Dollar
  ['BTN', '064', 2], // Ngultrum
  ['BWP', '072', 2], // Pula
  ['BYN', '933', 2], // Belarusian Ruble
  ['BZD', '084', 2], // Belize Dollar
  ['CAD', '124', 2], // Canadian Dollar
  ['CDF', '976', 2], // Congolese Franc
  ['CHE', '947', 2, 'fund'], // WIR Euro
  ['CHF', '756', 2], // Swiss Franc
  ['CHW', '948', 2, 'fund'], // WIR Franc
  ['CLF', '990', 4, 'fund'], // Unidad de Fomento
  ['CLP', '152', 0], // Chilean Peso
  ['CNY', '156', 2], // Yuan Renminbi
  ['COP', '170', 2], // Colombian Peso
  ['COU', '970', 2, 'fund'], // Unidad de Valor Real
  ['CRC', '188', 2], // Costa Rican Colon
  ['CUC', '931', 2], // Peso Convertible
  ['CUP', '192', 2], // Cuban Peso
  ['CVE', '132', 2], // Cabo Verde Escudo
  ['CZK', '203', 2], // Czech Koruna
  ['DJF', '262', 0], // Djibouti Franc
  ['DKK', '208', 2], // Danish Krone
  ['DOP', '214', 2], // Dominican Peso
  ['DZD', '012', 2], // Algerian Dinar
  ['EGP', '818', 2], // Egyptian Pound
  ['ERN', '232', 2], // Nakfa
  ['ETB', '230', 2], // Ethiopian Birr
  ['EUR', '978', 2], // Euro
  ['FJD', '242', 2], // Fiji Dollar
  ['FKP', '238', 2], // Falkland Islands Pound
  ['GBP', '826', 2], // Pound Sterling
  ['GEL', '981', 2], // Lari
  ['GHS', '936', 2], // Ghana Cedi
  ['GIP', '292', 2], // Gibraltar Pound
  ['GMD', '270', 2], // Dalasi
  ['GNF', '324', 0], // Guinean Franc
  ['GTQ', '320', 2], // Quetzal
  ['GYD', '328', 2], // Guyana Dollar
  ['HKD', '344', 2], // Hong Kong Dollar
  ['HNL', '340', 2], // Lempira
  ['HTG', '332', 2], // Gourde
  ['HUF', '348', 2], // Forint
  ['IDR', '360', 2], // Rupiah
  ['ILS', '376', 2], // New Israeli Sheqel
  ['INR', '356', 2], // Indian Rupee
  ['IQD', '368', 3], // Iraqi Dinar
  ['IRR', '364', 2], // Iranian Rial
  ['ISK', '352', 0], // Iceland Krona
  ['JMD', '388', 2], // Jamaican Dollar
  ['JOD', '400', 3], // Jordanian Dinar
  ['JPY', '392', 0], // Yen
  ['KES', '404', 2], // Kenyan Shilling
  ['KGS', '417', 2], // Som
  ['KHR', '116', 2], // Riel
  ['KMF', '174', 0], // Comorian Franc 
  ['KPW', '408', 2], // North Korean Won
  ['KRW', '410', 0], // Won
  ['KWD', '414', 3], // Kuwaiti Dinar
  ['KYD', '136', 2], // Cayman Islands Dollar
  ['KZT', '398', 2], // Tenge
  ['LAK', '418', 2], // Lao Kip
  ['LBP', '422', 2], // Lebanese Pound
  ['LKR', '144', 2], // Sri Lanka Rupee
  ['LRD', '430', 2], // Liberian Dollar
  ['LSL', '426', 2], // Loti
  ['LYD', '434', 3], // Libyan Dinar
  ['MAD', '504', 2], // Moroccan Dirham
  ['MDL', '498', 2], // Moldovan Leu
  ['MGA', '969', 2], // Malagasy Ariary
  ['MKD', '807', 2], // Denar
  ['MMK', '104', 2], // Kyat
  ['MNT', '496', 2], // Tugrik
  ['MOP', '446', 2], // Pataca
  ['MRU', '929', 2], // Ouguiya
  ['MUR', '480', 2], // Mauritius Rupee
  ['MVR', '462', 2], // Rufiyaa
  ['MWK', '454', 2], // Malawi Kwacha
  ['MXN', '484', 2], // Mexican Peso
  ['MXV', '979', 2, 'fund'], // Mexican Unidad de Inversion (UDI)
  ['MYR', '458', 2], // Malaysian Ringgit
  ['MZN', '943', 2], // Mozambique Metical
  ['NAD', '516', 2], // Namibia Dollar
  ['NGN', '566', 2], // Naira
  ['NIO', '558', 2], // Cordoba Oro
  ['NOK', '578', 2], // Norwegian Krone
  ['NPR', '524', 2], // Nepalese Rupee
  ['NZD', '554', 2], // New Zealand Dollar
  ['OMR', '512', 3], // Rial Omani
  ['PAB', '590', 2], // Balboa
  ['PEN', '604', 2], // Sol
  ['PGK', '598', 2], // Kina
  ['PHP', '608', 2], // Philippine Peso
  ['PKR', '586', 2], // Pakistan Rupee
  ['PLN', '985', 2], // Zloty
  ['PYG', '600', 0], // Guarani
  ['QAR', '634', 2], // Qatari Rial
  ['RON', '946', 2], // Romanian Leu
  ['RSD', '941', 2], // Serbian Dinar
  ['RUB', '643', 2], // Russian Ruble
  ['RWF', '646', 0], // Rwanda Franc
  ['SAR', '682', 2], // Saudi Riyal
  ['SBD', '090', 2], // Solomon Islands Dollar
  ['SCR', '690', 2], // Seychelles Rupee
  ['SDG', '938', 2], // Sudanese Pound
  ['SEK', '752', 2], // Swedish Krona
  ['SGD', '702', 2], // Singapore Dollar
  ['SHP', '654', 2], // Saint Helena Pound
  ['SLE', '925', 2], // Leone
  ['SOS', '706', 2], // Somali Shilling
  ['SRD', '968', 2], // Surinam Dollar
  ['SSP', '728', 2], // South Sudanese Pound
  ['STN', '930', 2], // Dobra
  ['SVC', '222', 2], // El Salvador Colon
  ['SYP', '760', 2], // Syrian Pound
  ['SZL', '748', 2], // Lilangeni
  ['THB', '764', 2], // Baht
  ['TJS', '972', 2], // Somoni
  ['TMT', '934', 2], // Turkmenistan New Manat
  ['TND', '788', 3], // Tunisian Dinar
  ['TOP', '776', 2], // Pa’anga
  ['TRY', '949', 2], // Turkish Lira
  ['TTD', '780', 2], // Trinidad and Tobago Dollar
  ['TWD', '901', 2], // New Taiwan Dollar
  ['TZS', '834', 2], // Tanzanian Shilling
  ['UAH', '980', 2], // Hryvnia
  ['UGX', '800', 0], // Uganda Shilling
  ['USD', '840', 2], // US Dollar
  ['USN', '997', 2, 'fund'], // US Dollar (Next day)
  ['UYI', '940', 0, 'fund'], // Uruguay Peso en Unidades Indexadas (UI)
  ['UYU', '858', 2], // Peso Uruguayo
  ['UYW', '927', 4], // Unidad Previsional
  ['UZS', '860', 2], // Uzbekistan Sum
  ['VED', '926', 2], // Bolívar Soberano
  ['VES', '928', 2], // Bolívar Soberano
  ['VND', '704', 0], // Dong
  ['VUV', '548', 0], // Vatu
  ['WST', '882', 2], // Tala
  ['XAF', '950', 0], // CFA Franc BEAC
  ['XCD', '951', 2], // East Caribbean Dollar
  ['XOF', '952', 0], // CFA Franc BCEAO
  ['XPF', '953', 0], // CFP Franc
  ['YER', '886', 2], // Yemeni Rial
  ['ZAR', '710', 2], // Rand
  ['ZMW', '967', 2], // Zambian Kwacha
  ['ZWG', '924', 2], // Zimbabwe Gold
];

/** Every currency of the table, in alphabetic order of code. */
export const ISO_4217_CURRENCIES: readonly Iso4217Currency[] = Object.freeze(
  LIST_ONE.map(([code, numeric, minorUnits, fund]) =>
    Object.freeze({ code, numeric, minorUnits, fund: fund === 'fund' }),
  ),
);

const BY_CODE = new Map(ISO_4217_CURRENCIES.map((currency) => [currency.code, currency]));
const BY_NUMERIC = new Map(ISO_4217_CURRENCIES.map((currency) => [currency.numeric, currency]));

/** The currency of an alphabetic code (`'EUR'`), or null when ISO 4217 list one has no such code. */
export const iso4217Currency = (code: string): Iso4217Currency | null => BY_CODE.get(code) ?? null;

/** Whether `code` is an alphabetic code of ISO 4217 list one (`EUR`; not `EUX`, nor the withdrawn `DEM`). */
export const isIso4217Code = (code: unknown): code is string => typeof code === 'string' && BY_CODE.has(code);

/** The alphabetic ISO 4217 code of a numeric one (`'978'` -> `'EUR'`), or null when not in the table. */
export const iso4217Alpha = (numeric: string): string | null => BY_NUMERIC.get(numeric)?.code ?? null;

/** The numeric ISO 4217 code of an alphabetic one (`'EUR'` -> `'978'`), or null when not in the table. */
export const iso4217Numeric = (code: string): string | null => BY_CODE.get(code)?.numeric ?? null;

/** The minor units (decimals) of a currency (`'KWD'` -> 3), or null when not in the table. */
export const iso4217MinorUnits = (code: string): number | null => BY_CODE.get(code)?.minorUnits ?? null;
