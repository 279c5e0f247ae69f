import { DomainError } from '@cip/shared/contracts';
import { filteredSource, type MergeSource, mergePages } from './merged-pages';

interface Item {
  id: string;
  at: string;
}

/** A keyset-paged list as a context serves it: newest first, a page after an item id. */
function list(key: string, items: Item[]): MergeSource<Item> & { reads: number } {
  const sorted = [...items].sort((a, b) => (a.at < b.at ? 1 : -1));
  const source = {
    key,
    reads: 0,
    idOf: (item: Item) => item.id,
    async read(after: string | null, limit: number) {
      source.reads++;
      const start = after ? sorted.findIndex((item) => item.id === after) + 1 : 0;
      return { items: sorted.slice(start, start + limit), hasMore: start + limit < sorted.length };
    },
  };
  return source;
}

const items = (prefix: string, times: number[]) =>
  times.map((t, i) => ({ id: `${prefix}${i}`, at: new Date(Date.UTC(2026, 0, 1, 0, 0, t)).toISOString() }));

async function walk(sources: MergeSource<Item>[], limit: number) {
  const pages: Item[][] = [];
  let cursor: string | undefined;
  do {
    const page = await mergePages(sources, { limit, cursor, order: (item) => item.at, direction: 'desc' });
    pages.push(page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

describe('mergePages', () => {
  const a = items('a', [1, 4, 9, 12, 30]);
  const b = items('b', [2, 3, 10, 11]);
  const c = items('c', [5]);
  const everything = [...a, ...b, ...c].sort((x, y) => (x.at < y.at ? 1 : -1));

  it.each([1, 2, 3, 7, 10, 100])(
    'walks several lists newest first without repeating or skipping (limit %i)',
    async (limit) => {
      const pages = await walk([list('a', a), list('b', b), list('c', c)], limit);
      expect(pages.flat()).toEqual(everything);
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    },
  );

  it('answers an empty last page with no cursor when there is nothing', async () => {
    expect(
      await mergePages([list('a', [])], { limit: 5, order: (item) => item.at, direction: 'desc' }),
    ).toEqual({ data: [], nextCursor: null });
  });

  it('stops reading a list it has given whole', async () => {
    const small = list('c', c);
    await walk([list('a', a), list('b', b), small], 2);
    // Its one item (second oldest of all) is on the third of five pages; the last two do not ask it again.
    expect(small.reads).toBe(3);
  });

  it.each([
    'garbage!',
    Buffer.from('[1]').toString('base64url'),
    Buffer.from('{"zz":"a0"}').toString('base64url'),
  ])('refuses a cursor it did not give (%s) with a validation error naming cursor', async (cursor) => {
    const refused = mergePages([list('a', a)], {
      limit: 2,
      cursor,
      order: (item) => item.at,
      direction: 'desc',
    });
    await expect(refused).rejects.toThrow(DomainError);
    await expect(refused).rejects.toMatchObject({ code: 'validation_error', details: [{ field: 'cursor' }] });
  });
});

describe('filteredSource', () => {
  const a = items('a', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

  it('fills pages with matching items only, reading on past the ones it drops', async () => {
    const odd = filteredSource(list('a', a), (item) => Number(item.id.slice(1)) % 2 === 1);
    const pages = await walk([odd], 2);
    expect(pages.flat().map((item) => item.id)).toEqual(['a9', 'a7', 'a5', 'a3', 'a1']);
  });

  it('stops at the bound of an ordered list', async () => {
    const from = a[6].at;
    const source = list('a', a);
    const pages = await walk(
      [
        filteredSource(
          source,
          () => true,
          (item) => item.at < from,
        ),
      ],
      3,
    );
    expect(pages.flat().map((item) => item.id)).toEqual(['a9', 'a8', 'a7', 'a6']);
    // No read past the bound: the bare list would take four pages of three.
    expect(source.reads).toBe(2);
  });
});
