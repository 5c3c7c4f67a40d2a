import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Post, RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { createTestApp, TestApp } from '../support/test-app.js';

/**
 * The names a module serves besides its own (`/jobs` is the jobs module's by its name). A route
 * belongs to the module that owns the first segment of its path, or, for a sub-resource
 * `/<resource>/:id/<name>`, to the module that owns `<name>` when one does: executions serves
 * `/jobs/:id/executions`, timeline `/jobs/:id/timeline`. A new resource is a line here.
 */
const NAMES: Record<string, string[]> = {
  auth: ['tokens', 'teams', 'users'],
  alerts: ['channels', 'deliveries'],
  apply: ['orbit-file'],
  executions: ['backfill', 'overview'],
  jobs: ['concurrency-groups', 'schedules'],
  observability: ['health', 'metrics'],
};

const SRC = join(import.meta.dirname, '../..', 'src');
const MODULES = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** The module that owns a path segment: the module of that name, or the one that lists it. */
function ownerOf(name: string): string | undefined {
  if (MODULES.includes(name)) return name;
  return Object.entries(NAMES).find(([, names]) => names.includes(name))?.[0];
}

interface Route {
  method: string;
  path: string;
}

/** Every route a controller class declares, from the metadata its decorators wrote (as Nest's router reads it). */
function routesOf(controller: Type): Route[] {
  const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
  const prototype = controller.prototype as Record<string, object>;
  return new MetadataScanner().getAllMethodNames(prototype).flatMap((name) => {
    const handler = prototype[name]!;
    const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
    if (paths === undefined) return [];
    const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
    return prefixes.flatMap((prefix) =>
      [paths].flat().map((path) => ({
        method,
        path: `/${[prefix, path]
          .flatMap((part) => part.split('/'))
          .filter((part) => part !== '')
          .join('/')}`,
      })),
    );
  });
}

/** The module a route belongs to, or undefined when no module owns its first segment. */
function moduleOfPath(path: string): string | undefined {
  const [resource = '', param, name] = path.split('/').slice(1);
  const subResource = param?.startsWith(':') && name !== undefined ? ownerOf(name) : undefined;
  return subResource ?? ownerOf(resource);
}

/** What is wrong with where controllers are, one sentence each: none when each route is in its module. */
function misplacedRoutes(controllersByModule: Map<string, Type[]>): string[] {
  return [...controllersByModule].flatMap(([module, controllers]) =>
    controllers.flatMap((controller) =>
      routesOf(controller).flatMap(({ method, path }) => {
        const owner = moduleOfPath(path);
        if (owner === undefined) {
          return [
            `${controller.name} (${module}) serves ${method} ${path}, a resource no module owns: ` +
              `name it in NAMES (test/architecture/module-routes.int-spec.ts) beside the module that serves it`,
          ];
        }
        if (owner === module) return [];
        return [
          `${controller.name} (${module}) serves ${method} ${path}, which belongs to ${owner}: ` +
            `move it to src/${owner}/http`,
        ];
      }),
    ),
  );
}

/** Each src/ folder's Nest modules (the classes its *.module.ts files export), by class. */
async function foldersOfModules(): Promise<Map<unknown, string>> {
  const folders = new Map<unknown, string>();
  for (const folder of MODULES) {
    for (const file of readdirSync(join(SRC, folder)).filter((name) => name.endsWith('.module.ts'))) {
      const exports = (await import(join(SRC, folder, file))) as Record<string, unknown>;
      for (const value of Object.values(exports)) folders.set(value, folder);
    }
  }
  return folders;
}

/** Each controller class written in src/<module>/http/*.controller.ts, with its module's folder. */
async function foldersOfControllers(): Promise<Map<Type, string>> {
  const folders = new Map<Type, string>();
  for (const folder of MODULES.filter((name) => existsSync(join(SRC, name, 'http')))) {
    for (const file of readdirSync(join(SRC, folder, 'http')).filter((name) => name.endsWith('.controller.ts'))) {
      const exports = (await import(join(SRC, folder, 'http', file))) as Record<string, unknown>;
      for (const value of Object.values(exports)) {
        if (typeof value === 'function' && Reflect.hasMetadata(PATH_METADATA, value))
          folders.set(value as Type, folder);
      }
    }
  }
  return folders;
}

describe('each route lives in the module its path names', () => {
  let t: TestApp;
  /** The app's controllers (every role's modules), by the src/ folder of the module that registers them. */
  let app: Map<string, Type[]>;

  beforeAll(async () => {
    t = await createTestApp({ role: 'all', init: false });
    const folders = await foldersOfModules();
    app = new Map();
    for (const module of t.app.get(ModulesContainer).values()) {
      if (module.controllers.size === 0) continue;
      const folder = folders.get(module.metatype);
      if (folder === undefined) throw new Error(`${module.metatype.name} has controllers but is no module of src/`);
      const controllers = [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type);
      app.set(folder, [...(app.get(folder) ?? []), ...controllers]);
    }
  });
  afterAll(() => t.close());

  it('every route of the app is served by the module that owns its path', () => {
    expect([...app.values()].flat().length).toBeGreaterThan(15);
    expect(misplacedRoutes(app)).toEqual([]);
  });

  it('every controller is written in src/<module>/http of the module that registers it', async () => {
    const written = await foldersOfControllers();
    const registered = new Map([...app].flatMap(([folder, controllers]) => controllers.map((c) => [c, folder])));
    const where = (folder: string | undefined) => (folder ? `src/${folder}/http` : 'no src/*/http/*.controller.ts');
    const elsewhere = [...new Set([...written.keys(), ...registered.keys()])]
      .filter((controller) => written.get(controller) !== registered.get(controller))
      .map(
        (controller) =>
          `${controller.name} is written in ${where(written.get(controller))} ` +
          `but registered by ${registered.get(controller) ?? 'no module'}`,
      );
    expect(elsewhere).toEqual([]);
    expect(written.size).toBeGreaterThan(15);
  });

  it('sub-resources go to the module their name names, other paths to the module of their first segment', () => {
    expect(moduleOfPath('/jobs/:id/executions')).toBe('executions');
    expect(moduleOfPath('/jobs/:id/timeline')).toBe('timeline');
    expect(moduleOfPath('/jobs/:id/pause')).toBe('jobs');
    expect(moduleOfPath('/jobs/recent-runs')).toBe('jobs');
    expect(moduleOfPath('/workers/:id/drain')).toBe('workers');
    expect(moduleOfPath('/concurrency-groups/:id')).toBe('jobs');
  });

  it('a planted controller fails, naming itself, the route and the module it belongs in', () => {
    @Controller('jobs')
    class PlantedPauseController {
      @Post(':id/pause')
      pause(): void {}

      @Get(':id/timeline')
      timeline(): void {}
    }
    @Controller()
    class PlantedReportsController {
      @Get('reports/weekly')
      weekly(): void {}
    }
    const planted = new Map([['workers', [PlantedPauseController, PlantedReportsController]]]);
    expect(misplacedRoutes(planted)).toEqual([
      'PlantedPauseController (workers) serves POST /jobs/:id/pause, which belongs to jobs: move it to src/jobs/http',
      'PlantedPauseController (workers) serves GET /jobs/:id/timeline, which belongs to timeline: move it to src/timeline/http',
      'PlantedReportsController (workers) serves GET /reports/weekly, a resource no module owns: ' +
        'name it in NAMES (test/architecture/module-routes.int-spec.ts) beside the module that serves it',
    ]);
  });
});
