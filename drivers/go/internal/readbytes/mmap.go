package readbytes

import (
	"os"
	"syscall"
)

// mmapLib is the strategy `mmap`: each pass maps the whole file (syscall.Mmap, PROT_READ,
// MAP_PRIVATE) and walks the mapping as a byte slice through memSource; Munmap at the end
// of the pass. The descriptor is closed as soon as the mapping exists (the mapping keeps
// the file), as the C++ driver's mmap does.
type mmapLib struct{ path string }

func newMmap(path string) (strategy, error) { return &mmapLib{path}, nil }

func (l *mmapLib) pass(c kase) (tally, error) {
	fd, err := syscall.Open(l.path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return tally{}, &os.PathError{Op: "open", Path: l.path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return tally{}, &os.PathError{Op: "fstat", Path: l.path, Err: err}
	}
	var data []byte
	if st.Size > 0 { // mmap refuses a length of 0: an empty file is an empty source
		data, err = syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_PRIVATE)
		if err != nil {
			syscall.Close(fd)
			return tally{}, &os.PathError{Op: "mmap", Path: l.path, Err: err}
		}
	}
	if err := syscall.Close(fd); err != nil {
		if data != nil {
			syscall.Munmap(data)
		}
		return tally{}, &os.PathError{Op: "close", Path: l.path, Err: err}
	}
	t, err := memSource{data: data}.consume(c)
	if data != nil {
		if uerr := syscall.Munmap(data); uerr != nil && err == nil {
			err = &os.PathError{Op: "munmap", Path: l.path, Err: uerr}
		}
	}
	return t, err
}
