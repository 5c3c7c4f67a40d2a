# syntax=docker/dockerfile:1
# Orbit: `docker compose up` uses this with the PostgreSQL from docker-compose.yml.
# The role (all | api | worker) is the first argument or ORBIT_ROLE; DATABASE_URL is required
# here (without it Orbit would start an embedded PostgreSQL inside the container).

FROM node:24-bookworm-slim AS base
# npm 11, as on the developers' machines: it honours package.json "allowScripts".
RUN npm install -g npm@11.19.1 --no-audit --no-fund && npm cache clean --force
WORKDIR /app

FROM base AS build
# the C compiler for the native launcher, which the runtime stage takes built in dist/native
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# the install script builds the native launcher from these
COPY scripts ./scripts
COPY src/runtime/infrastructure/launcher ./src/runtime/infrastructure/launcher
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY web ./web
RUN npm run build

FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    ORBIT_DATA_DIR=/var/lib/orbit \
    ORBIT_COMMAND_USER=orbit-command
COPY package.json package-lock.json ./
# the install script runs here too; with no compiler in this stage it says so, and the launcher
# built in the build stage comes with dist/native below
COPY scripts ./scripts
COPY src/runtime/infrastructure/launcher ./src/runtime/infrastructure/launcher
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Orbit runs as root only to start each command as orbit-command, a user of its own that can
# read neither Orbit's environment nor its files (see docs/security.md); commands work in
# ORBIT_DATA_DIR/work. Secrets are best given as files: ORBIT_ADMIN_TOKEN_FILE=/run/secrets/...
RUN useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin orbit-command \
    && install -d -m 0755 /var/lib/orbit \
    && install -d -m 0755 -o orbit-command -g orbit-command /var/lib/orbit/work
USER root
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
