# syntax=docker/dockerfile:1
# Orbit: `docker compose up` uses this with the PostgreSQL from docker-compose.yml.
# The role (all | api | worker) is the first argument or ORBIT_ROLE; DATABASE_URL is required
# here (without it Orbit would start an embedded PostgreSQL inside the container).

FROM node:20-bookworm-slim AS base
# npm 11, as on the developers' machines: it honours package.json "allowScripts".
RUN npm install -g npm@11.19.1 --no-audit --no-fund && npm cache clean --force
WORKDIR /app

FROM base AS build
COPY package.json package-lock.json ./
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
    ORBIT_DATA_DIR=/var/lib/orbit
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Jobs' commands run as this unprivileged user, in ORBIT_DATA_DIR/work.
RUN mkdir -p /var/lib/orbit && chown node:node /var/lib/orbit
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
