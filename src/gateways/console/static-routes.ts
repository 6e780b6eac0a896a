import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../errors/index.js';
import type { Reply } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';

const require = createRequire(import.meta.url);

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Everything the page may load comes from this gateway; nothing inline, no eval, no frames. The
 * admin key lives in the page's sessionStorage: a script injected from elsewhere is what could
 * read it, and this policy is what stops one from running.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-cache',
};

/** The package's root: where package.json is, above this file in `src/` or in `dist/src/`. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('console: no package.json above the gateway');
    dir = up;
  }
  return dir;
}

/** The console's files (console/ at the package root) and uPlot's, read once at start. */
function loadAssets(): Map<string, { body: Buffer; type: string }> {
  const assets = new Map<string, { body: Buffer; type: string }>();
  const folder = join(packageRoot(), 'console');
  for (const name of readdirSync(folder)) {
    const type = types[extname(name)];
    if (type) assets.set(name, { body: readFileSync(join(folder, name)), type });
  }
  // uPlot from its package (no CDN); `require.resolve` by that name lets knip see it used.
  const uplot = dirname(require.resolve('uplot/package.json'));
  assets.set('uplot.esm.js', { body: readFileSync(join(uplot, 'dist/uPlot.esm.js')), type: types['.js']! });
  assets.set('uplot.min.css', { body: readFileSync(join(uplot, 'dist/uPlot.min.css')), type: types['.css']! });
  return assets;
}

/**
 * `/console`, the operators' web page, and its files under `/console/…`: public (the page holds
 * nothing; every datum comes from `/v1` with the admin key the operator signs in with), served
 * with a strict Content-Security-Policy.
 */
export function consoleStaticRoutes(): RouteSpec[] {
  const assets = loadAssets();
  const serve = (name: string): Reply => {
    const asset = assets.get(name);
    if (!asset) throw new AppError('NOT_FOUND', `the console has no file ${name}`);
    return { status: 200, headers: { ...securityHeaders, 'Content-Type': asset.type }, body: asset.body };
  };
  return [
    {
      method: 'GET',
      path: '/console',
      usesDatabase: false,
      doc: {
        summary: "The operators' console (sign in with an admin API key)",
        operationId: 'getConsole',
        tag: 'console',
        public: true,
        responseType: 'text/html',
        responses: { 200: 'HTML page' },
      },
      handler: () => serve('index.html'),
    },
    {
      method: 'GET',
      path: '/console/:file',
      usesDatabase: false,
      doc: {
        summary: "The console's scripts and styles",
        operationId: 'getConsoleAsset',
        tag: 'console',
        public: true,
        responseType: ['text/javascript', 'text/css'],
        responses: { 200: 'The file' },
        errors: ['NOT_FOUND'],
      },
      handler: (ctx) => serve(ctx.params.file ?? ''),
    },
  ];
}
