//go:build !unix

package benchmem

import "time"

// ProcessCPU is unknown here: -1.
func ProcessCPU() time.Duration { return -1 }
