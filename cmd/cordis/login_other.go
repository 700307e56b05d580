//go:build !linux

package main

import (
	"errors"
	"os"
)

// echoOff is not implemented here: the key is read as typed.
func echoOff(*os.File) (func(), error) { return nil, errors.New("echo control not supported") }
