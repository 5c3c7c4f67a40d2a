import ts from 'typescript';

/**
 * Jest transformer for the few ESM-only packages that a CommonJS dependency `require`s
 * (@fastify/static requires content-disposition 3). Node 20.19+ loads them natively
 * (require(esm)); Jest's own module loader cannot on Node 20, so they are compiled to
 * CommonJS for tests only.
 */
export default {
  process(source, path) {
    const { outputText } = ts.transpileModule(source, {
      fileName: path,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2023, esModuleInterop: true },
    });
    return { code: outputText };
  },
};
