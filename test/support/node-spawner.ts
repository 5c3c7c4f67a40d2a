// The "node spawner" jest project: the apps its tests start use the Node spawner (see test-app.ts).
process.env.ORBIT_TEST_LAUNCHER = 'node';
