/**
 * The inputs in an aggregator's cumulative `text` (`1*2*1234`). A lone `*` typed by the user
 * arrives as two empty segments (`1**`), and is read back as the input `*` (exit).
 */
export function splitInputs(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('*');
  const inputs: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === '' && parts[i + 1] === '' && i + 1 < parts.length) {
      inputs.push('*');
      i++;
    } else {
      inputs.push(parts[i]!.trim());
    }
  }
  return inputs;
}

/** Navigation keys, valid on every screen but where the screen reads them as an answer. */
export const NAV = { back: '0', home: '00', exit: '*', more: '98' } as const;
