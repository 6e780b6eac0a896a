import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError } from '../../errors/index.js';
import type { HttpContext } from '../http/context.js';
import type { Reply } from '../http/reply.js';
import type { Router, RouteSpec } from '../http/router.js';
import { buildOpenApi } from './openapi.js';

// Swagger UI is served from the package's folder; `require.resolve` by that name lets knip see it used.
const require = createRequire(import.meta.url);
const assetsDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const types: Record<string, string> = {
  '.js': 'application/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.html': 'text/html',
  '.map': 'application/json',
};

/** This document, in outline (its rules are the OpenAPI 3.1 specification's). */
const documentOutline = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});

/** The one JSON asset: a source map of a script or stylesheet. */
const sourceMap = z.looseObject({ version: z.literal(3), sources: z.array(z.string()), mappings: z.string() });

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hearth API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;

const init = `window.ui = SwaggerUIBundle({ url: '/docs/openapi.json', dom_id: '#ui' });`;

/**
 * `/docs` (Swagger UI, served from the swagger-ui-dist package: no CDN), `/docs/openapi.json`
 * (built on first request from the routes registered by then), and `/docs/*` assets. Public.
 */
export function docsRoutes(router: Router, version: string): RouteSpec[] {
  const routes: RouteSpec[] = [];
  let document: string | undefined;
  const text = (status: number, body: string, type: string): Reply => ({
    status,
    headers: { 'Content-Type': type },
    body,
  });
  routes.push(
    {
      method: 'GET',
      path: '/docs',
      // Never touches PostgreSQL: served while it is down.
      usesDatabase: false,
      doc: {
        operationId: 'getDocsPage',
        summary: 'Interactive API documentation (Swagger UI)',
        tag: 'docs',
        public: true,
        responseType: 'text/html',
        responses: { 200: 'HTML page' },
      },
      handler: () => text(200, page, 'text/html; charset=utf-8'),
    },
    {
      method: 'GET',
      path: '/docs/init.js',
      usesDatabase: false,
      doc: {
        operationId: 'getDocsInit',
        summary: 'Starts Swagger UI on /docs/openapi.json',
        tag: 'docs',
        public: true,
        responseType: 'application/javascript',
        responses: { 200: 'JavaScript' },
      },
      handler: () => text(200, init, 'application/javascript'),
    },
    {
      method: 'GET',
      path: '/docs/openapi.json',
      usesDatabase: false,
      doc: {
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        tag: 'docs',
        public: true,
        responses: { 200: 'The document' },
        responseBody: documentOutline,
      },
      handler: () => {
        document ??= JSON.stringify(buildOpenApi(router.list(), version));
        return text(200, document, 'application/json; charset=utf-8');
      },
    },
    {
      method: 'GET',
      path: '/docs/:asset',
      usesDatabase: false,
      doc: {
        operationId: 'getDocsAsset',
        summary: 'A Swagger UI asset (from the swagger-ui-dist package)',
        tag: 'docs',
        public: true,
        responseType: [...new Set(Object.values(types))],
        responses: { 200: 'The asset, by its extension: a script, a stylesheet, an image, a page or a source map' },
        responseBody: sourceMap,
        errors: ['NOT_FOUND'],
      },
      async handler(ctx: HttpContext) {
        const asset = ctx.params.asset ?? '';
        const ext = /\.[a-z]+$/.exec(asset)?.[0] ?? '';
        if (!/^[A-Za-z0-9._-]+$/.test(asset) || asset.startsWith('.') || !types[ext]) {
          throw new AppError('NOT_FOUND', `no documentation asset ${asset}`);
        }
        // Missing or unreadable: a 404 like any other name that is not an asset.
        const body = await readFile(join(assetsDir, asset)).catch(() => undefined);
        if (!body) throw new AppError('NOT_FOUND', `no documentation asset ${asset}`);
        return {
          status: 200,
          headers: { 'Content-Type': types[ext], 'Cache-Control': 'public, max-age=86400' },
          body,
        };
      },
    },
  );
  return routes;
}
