/** hearth's version, as in package.json (a test keeps the two equal). */
export const version = '0.1.0';
