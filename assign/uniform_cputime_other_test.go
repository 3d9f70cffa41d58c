//go:build !unix

package assign

import "time"

// processCPU is unknown here.
func processCPU() time.Duration { return -1 }
