/** The process cannot start as configured: its message says what is wrong and the fix (one line). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
}
