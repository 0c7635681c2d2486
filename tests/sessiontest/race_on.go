//go:build race

package sessiontest

// raceSlowdown is how much longer workflow code may run without yielding
// under the race detector (see WorkerOptions).
const raceSlowdown = 5
