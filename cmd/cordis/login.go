package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cordis-agent/cordis/cmd/cordis/config"
)

// runLogin is `cordis login` (and `cordis acp [flags] login`, which is
// how a client runs the typed terminal auth method: the agent's command
// with "login" appended). It asks for the key of the configured
// provider, without echo on a terminal, and stores it in the credential
// file. The key is never printed or logged.
func runLogin(f *flags, stdin io.Reader, stdout, stderr io.Writer) error {
	name, err := loginKeyName(f.config)
	if err != nil {
		return err
	}
	creds, err := userCredentials()
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "Paste your %s (it is not shown) and press Enter: ", name)
	key, err := readSecret(stdin)
	if err != nil {
		return fmt.Errorf("login: reading the key: %v", err)
	}
	if key == "" {
		return errors.New("login: no key given; nothing stored")
	}
	if err := creds.store(name, key); err != nil {
		return fmt.Errorf("login: storing the key: %v", err)
	}
	fmt.Fprintf(stdout, "Stored %s in %s (readable by you only). cordis uses it when %s is not set; `cordis logout` or the editor's logout removes it.\n", name, creds.path, name)
	return nil
}

// runLogout is `cordis logout`: it removes the stored keys of every
// provider (a key in the environment stays).
func runLogout(f *flags, stdout io.Writer) error {
	creds, err := userCredentials()
	if err != nil {
		return err
	}
	if err := creds.remove(knownKeyNames(f.config)...); err != nil {
		return fmt.Errorf("logout: %v", err)
	}
	fmt.Fprintf(stdout, "Removed the stored keys from %s.\n", creds.path)
	return nil
}

// loginKeyName is the key variable of the configured provider.
func loginKeyName(flagPath string) (string, error) {
	cwd, _ := os.Getwd()
	userDir, _ := os.UserConfigDir()
	cfg := builtinDefault()
	if path, found := config.Locate(flagPath, os.Getenv, cwd, userDir); found {
		var err error
		if cfg, err = config.Load(path, newRegistry(), os.Getenv); err != nil {
			return "", fmt.Errorf("login: the configuration names the provider, and it is broken: %v", err)
		}
	}
	names := providerKeyEnv(cfg)
	if len(names) == 0 {
		return "", errors.New("login: the configured model provider takes no key")
	}
	return names[0], nil
}

// knownKeyNames are the key variables logout removes: the configured
// provider's, and the defaults of both providers.
func knownKeyNames(flagPath string) []string {
	names := []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY"}
	if name, err := loginKeyName(flagPath); err == nil {
		names = append(names, name)
	}
	return names
}

// readSecret reads one line, with echo off when in is a terminal (the
// newline still shows).
func readSecret(in io.Reader) (string, error) {
	if f, ok := in.(*os.File); ok {
		if restore, err := echoOff(f); err == nil {
			defer restore()
		}
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
