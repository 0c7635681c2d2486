//go:build !race

package sessiontest

// raceSlowdown is 1 without the race detector: the SDK's own default.
const raceSlowdown = 1
