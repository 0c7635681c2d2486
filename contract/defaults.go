package contract

// Where the worker's embedded server listens unless told otherwise, and so
// where the client looks when no Temporal address is configured.
const (
	DefaultFrontendAddress = "127.0.0.1:7233"
	DefaultUIAddress       = "127.0.0.1:8233"
	// DefaultCodecAddress is the worker's codec server, when payloads are
	// encrypted: the Temporal UI and the stock CLI decrypt through it.
	DefaultCodecAddress = "127.0.0.1:8234"
)

// The default limits of one todo_write (validation rules 3, 7 and 10); a
// worker may set others.
const (
	DefaultMaxItems        = 500
	DefaultMaxContentBytes = 4096
	DefaultMaxTotalBytes   = 262144
)
