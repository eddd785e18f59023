/**
 * Where the first syntax error in `text` is, as an offset, or null when it parses. JSON.parse
 * says "at position N" for some errors only ("Unexpected token ']', "[1,]" is not valid JSON"
 * has none), so a failed parse is walked again by this strict scanner to find the place.
 */
export function jsonErrorOffset(text: string): number | null {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail();
    i++;
  };
  const string = () => {
    expect('"');
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c < 0x20) fail();
      if (c === 0x22) {
        i++;
        return;
      }
      if (c === 0x5c) {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
        } else {
          if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
          i++;
        }
        continue;
      }
      i++;
    }
  };
  const value = (): void => {
    space();
    const c = text[i];
    if (c === '{') {
      i++;
      space();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        space();
        string();
        space();
        expect(':');
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect('}');
        return;
      }
    }
    if (c === '[') {
      i++;
      space();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        space();
        if (text[i] === ',') {
          i++;
          continue;
        }
        expect(']');
        return;
      }
    }
    if (c === '"') return string();
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return;
      }
    }
    const number = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
    number.lastIndex = i;
    if (!number.test(text)) fail();
    i = number.lastIndex;
  };
  try {
    value();
    space();
    if (i < text.length) fail();
    return null;
  } catch (error) {
    if (error instanceof JsonSyntaxAt) return error.offset;
    throw error;
  }
}

class JsonSyntaxAt extends Error {
  constructor(readonly offset: number) {
    super(`JSON syntax error at ${offset}`);
  }
}
