package engine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Size caps of the files a user hands to evotune. A weights file is about 600 bytes and a
// config file a few hundred; the caps stop a mistaken path (a log, an image, /dev/zero)
// long before it costs memory.
const (
	// MaxWeightsFileSize caps a weights file (bytes).
	MaxWeightsFileSize = 1 << 20
	// MaxConfigFileSize caps a run config file (bytes).
	MaxConfigFileSize = 1 << 20
	// MaxOpeningsFileSize caps an opening file (bytes): about 300 000 openings.
	MaxOpeningsFileSize = 16 << 20
)

// ReadInputFile reads a file the user named, refusing what is not a regular file (a
// directory, a device such as /dev/zero, a FIFO) and files larger than max bytes; symlinks
// are followed. what names the file in errors: "weights file x.json: not a regular file
// (a character device)", "config big.yaml: 104857600 bytes, more than the 1048576 allowed".
func ReadInputFile(path, what string, max int64) ([]byte, error) {
	// Checked before the open: opening a FIFO for reading blocks until a writer comes, and
	// none may ever come.
	before, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file (%s)", what, path, kind(before.Mode()))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if !fi.Mode().IsRegular() || !os.SameFile(before, fi) {
		return nil, fmt.Errorf("%s %s: replaced while it was opened; not read", what, path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s %s: %d bytes, more than the %d allowed", what, path, fi.Size(), max)
	}
	// The file may grow while it is read: never read more than max+1 bytes.
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s %s: more than the %d bytes allowed", what, path, max)
	}
	return data, nil
}

// kind names a non-regular file mode for error messages.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// OutputTarget resolves where a write to path lands: symlinks are followed (a link to a
// file that does not exist yet resolves to that file), so a write through a link updates
// its target and the link stays. It refuses targets that exist and are not regular files
// (/dev/full, a directory, a FIFO): writing there by rename would replace the device node
// or fail half-way. The error names path and what it is.
func OutputTarget(path string) (string, error) {
	if path == "" {
		return "", errors.New("output path is empty")
	}
	target := path
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", fmt.Errorf("%s: not a regular file (%s); name a file to write", path, kind(fi.Mode()))
			}
			return target, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
}

// WriteFileAtomic writes data to path through a temporary file in the target's directory
// and a rename, so a crash or a full disk never leaves a partial file: the old content or
// the new, nothing between. The target is resolved by OutputTarget (symlinks followed,
// non-regular files refused, nothing written then). An existing file keeps its permission
// bits; a new one gets 0644.
func WriteFileAtomic(path string, data []byte) error {
	target, err := OutputTarget(path)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp*")
	if err != nil {
		if dir := filepath.Dir(target); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: the directory %s does not exist (create it first)", path, dir)
		}
		return fmt.Errorf("%s: %s", path, errors.Unwrap(err))
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(name, target); err != nil {
		os.Remove(name)
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
