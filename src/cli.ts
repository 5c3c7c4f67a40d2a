#!/usr/bin/env node
/**
 * The `orbit` command (the package's bin). `orbit token …` works on the database directly, for
 * the first token, when there is none to call the API with; everything else is the REST
 * client of src/cli/. Each is loaded alone: the client needs none of the server's code.
 */
if (process.argv[2] === 'token') await import('./token-admin.js');
else await import('./cli/orbit.js');
