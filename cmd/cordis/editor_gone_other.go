//go:build !unix

package main

import (
	"context"
	"os"
)

// watchStdoutClosed relies on write errors alone here.
func watchStdoutClosed(context.Context, *os.File, context.CancelFunc) {}
