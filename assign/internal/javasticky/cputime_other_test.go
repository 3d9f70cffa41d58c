//go:build !unix

package javasticky

import "time"

// processCPU is unknown here.
func processCPU() time.Duration { return -1 }
