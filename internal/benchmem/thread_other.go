//go:build !linux

package benchmem

import "time"

// ThreadCPU is unknown here: -1.
func ThreadCPU() time.Duration { return -1 }
