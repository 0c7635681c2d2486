//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package embedded

// lockDataDir is a no-op where flock is unavailable; callers there must not
// point two servers at the same DataDir.
func lockDataDir(string) (unlock func(), err error) {
	return func() {}, nil
}
