package core

import "fmt"

// The limits every decoder of this driver applies to bytes it did not produce (a pipe, a
// golden file), one policy for every language (drivers/go/fuzz/README.md). None is left to
// a library's default: each is set where the decoder is made.
const (
	// MaxMessageBytes bounds one message or frame (a pipe message, a golden codec file):
	// 64 MiB, 100 times the largest message of any case (catrank, about 0.5 MiB); a length
	// prefix above it is refused before anything is allocated for it.
	MaxMessageBytes = 64 << 20

	// CapnpTraverseLimitWords bounds the words a Cap'n Proto reader may traverse in one
	// message (8 Mi words, 64 MiB, the size limit): a message whose pointers point many
	// times at the same data (amplification) stops there instead of looping on it.
	CapnpTraverseLimitWords = 8 << 20
	// CapnpNestingLimit bounds the pointer depth a Cap'n Proto reader follows (the eval
	// case nests about 10 deep): a deeper message is an error, not a deep recursion.
	CapnpNestingLimit = 64

	// ProtobufRecursionLimit bounds the message nesting protobuf's parser accepts (and the
	// eval evaluator follows): far above the eval case's, far below a stack's worth.
	ProtobufRecursionLimit = 100

	// NullMaxDepth bounds the eval expression nesting the null format's reader follows,
	// as Cap'n Proto's nesting limit (the generator never nests deeper than 9).
	NullMaxDepth = 64
)

// CapnpTraverseLimitBytes is CapnpTraverseLimitWords in the unit go-capnp counts (bytes).
const CapnpTraverseLimitBytes = CapnpTraverseLimitWords * 8

// TooLong is the error for a message of n bytes above MaxMessageBytes; what names the
// stream or file.
func TooLong(what string, n uint64) error {
	return fmt.Errorf("%s: message of %d bytes is over the limit of %d bytes (64 MiB)", what, n,
		uint64(MaxMessageBytes))
}
