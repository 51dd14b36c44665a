//go:build !linux

package readbytes

import "errors"

// canDropCache: no cold cell is listed where this driver has no posix_fadvise.
const canDropCache = false

func dropCache(path string) error {
	return errors.New("cache cold: posix_fadvise is available to this driver on Linux only")
}
