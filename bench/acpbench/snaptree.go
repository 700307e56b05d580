package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// snapTree lays out dst as a scenario tree for the snapshot suite
// (CORDIS_SNAPSHOTS_ROOT): the checkout's configs, every scenario of the
// checkout with its fixture, and copies of them (<name>-copy2, ...) in
// turn until it holds n scenarios.
func snapTree(o *options, n int, dst string) error {
	entries, err := os.ReadDir(filepath.Join(o.repo, "snapshots"))
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(o.repo, "snapshots", e.Name(), "manifest.yml")); err == nil {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return fmt.Errorf("no scenarios under %s", filepath.Join(o.repo, "snapshots"))
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	for _, f := range []string{"cordis.yml", "cordis.snapshot.yml"} {
		if err := copyTree(filepath.Join(o.repo, f), filepath.Join(dst, f)); err != nil {
			return err
		}
	}
	for i := range max(n, len(names)) {
		name := names[i%len(names)]
		copyName := name
		if k := i/len(names) + 1; k > 1 {
			copyName = name + "-copy" + strconv.Itoa(k)
		}
		if err := copyTree(filepath.Join(o.repo, "snapshots", name), filepath.Join(dst, "snapshots", copyName)); err != nil {
			return err
		}
		fx := filepath.Join(o.repo, "fixtures", name)
		if _, err := os.Stat(fx); err == nil {
			if err := copyTree(fx, filepath.Join(dst, "fixtures", copyName)); err != nil {
				return err
			}
		}
	}
	return nil
}
