//go:build !unix

package main

import (
	"os"
	"time"
)

func maxRSS(*os.ProcessState) int64 { return 0 }

func selfCPU() time.Duration { return 0 }
