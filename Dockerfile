# glibc base: the uWebSockets.js binary does not load on Alpine's musl.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Before the install: its postinstall guards the postgres driver (scripts/patch-postgres.mjs).
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# Migrations run at start (idempotent, under an advisory lock); `npm run migrate` runs them alone.
CMD ["node", "dist/src/main.js"]
