package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// workerThread is the name chromium gives a dedicated worker's thread
// (its comm, which Linux cuts at 15 bytes).
const workerThread = "DedicatedWorker"

// clockTick is Linux's USER_HZ, the unit of /proc's CPU times: 100 on
// every architecture Go builds for.
const clockTick = 10 * time.Millisecond

// workerCPU returns the CPU time (user and system) that chromium's
// dedicated worker threads have used, in the browser whose profile
// directory is profile (its processes name it on their command line),
// read from /proc: Linux only, to 10 ms.
func workerCPU(profile string) (time.Duration, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("the worker's CPU time: %w", err)
	}
	var total time.Duration
	found := 0
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(profile)) {
			continue
		}
		tasks, err := os.ReadDir(filepath.Join("/proc", p.Name(), "task"))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			dir := filepath.Join("/proc", p.Name(), "task", t.Name())
			comm, err := os.ReadFile(filepath.Join(dir, "comm"))
			if err != nil || strings.TrimSpace(string(comm)) != workerThread {
				continue
			}
			stat, err := os.ReadFile(filepath.Join(dir, "stat"))
			if err != nil {
				continue
			}
			d, err := statCPU(string(stat))
			if err != nil {
				return 0, err
			}
			total += d
			found++
		}
	}
	if found == 0 {
		return 0, errors.New("the worker's CPU time: no chromium worker thread found in /proc")
	}
	return total, nil
}

// statCPU reads utime and stime from a /proc/PID/task/TID/stat line.
func statCPU(stat string) (time.Duration, error) {
	// The name, in parentheses, may hold spaces: the fields after it
	// start with the state (the third field), utime is the 14th.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("the worker's CPU time: a stat line without its name: %.40q", stat)
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("the worker's CPU time: a stat line of %d fields", len(f)+2)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 63)
	stime, err2 := strconv.ParseUint(f[12], 10, 63)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("the worker's CPU time: %w", err)
	}
	return time.Duration(utime+stime) * clockTick, nil
}
