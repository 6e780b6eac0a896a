/** The PIN key every test process gets (a test secret, never a deployment's). */
export const testPinKey = 'a3f1c9e07b5d2468a3f1c9e07b5d2468';
