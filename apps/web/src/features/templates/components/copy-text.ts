/** Puts text on the clipboard; says what happened in words for a status line. */
export async function copyText(text: string): Promise<string> {
  try {
    await navigator.clipboard.writeText(text);
    return 'Copied to the clipboard.';
  } catch {
    return 'The browser refused the clipboard: select the text and press Ctrl+C.';
  }
}
