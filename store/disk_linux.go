package store

import "syscall"

// stRdonly is ST_RDONLY, the read-only flag of statfs(2)'s f_flags.
const stRdonly = 0x1

// statDisk asks the file system holding dir for its free space and mount
// flags; ok is false when dir cannot be asked (it does not exist).
func statDisk(dir string) (disk, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return disk{}, false
	}
	return disk{known: true, free: st.Bavail * uint64(st.Bsize), readOnly: st.Flags&stRdonly != 0}, true
}
