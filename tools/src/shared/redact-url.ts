/** The URL without its credentials, for messages, tables and JSON. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace('//', '//***@');
  } catch {
    return '(unparseable URL)';
  }
}
