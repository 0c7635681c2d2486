package codec

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// EnvToken holds the codec server's token itself; a token file
// (--codec-token-file) is the alternative, and setting both is an error.
const EnvToken = "AGENT_CODEC_TOKEN"

// LoadToken finds the codec server's token: the first line of the file at
// path (mode 0600, like a key file), else $AGENT_CODEC_TOKEN, else none ("").
// A token shorter than MinTokenBytes is refused.
func LoadToken(path string) (string, error) {
	env := os.Getenv(EnvToken)
	var token, source string
	switch {
	case path != "" && env != "":
		return "", fmt.Errorf("codec token: set either --codec-token-file or $%s, not both", EnvToken)
	case path != "":
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("codec token: %w", err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("codec token file %s can be read by others (mode %04o): chmod 600 it", path, fi.Mode().Perm())
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("codec token: %w", err)
		}
		first, _, _ := strings.Cut(string(raw), "\n")
		token, source = strings.TrimSpace(first), path
	case env != "":
		token, source = strings.TrimSpace(env), "$"+EnvToken
	default:
		return "", nil
	}
	if len(token) < MinTokenBytes {
		return "", fmt.Errorf("codec token in %s is shorter than %d bytes", source, MinTokenBytes)
	}
	return token, nil
}
