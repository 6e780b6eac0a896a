# glibc base: the uWebSockets.js binary does not load on Alpine's musl.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Before the install: its postinstall guards the postgres driver (scripts/patch-postgres.mjs).
COPY scripts ./scripts
# npm ci: exactly the lock file, refused when it is out of sync with package.json.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The service alone: the benchmark (bench/, `npm run bench`) is not built into the image.
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The operators' console (/console): static files the gateway serves as they are.
COPY console ./console
USER node
EXPOSE 3000
# /health pings Redis and PostgreSQL (503 when either is down). The slim image has no curl:
# Node's own fetch asks it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Migrations run at start (idempotent, under an advisory lock); `npm run migrate` runs them alone.
CMD ["node", "dist/src/main.js"]
