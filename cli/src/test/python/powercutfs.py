#!/usr/bin/python3
"""powercutfs: a FUSE passthrough that forgets what was not fsynced, on demand (the idea of LazyFS).

    /usr/bin/python3 powercutfs.py BACKING MOUNTPOINT

Everything mounted at MOUNTPOINT behaves like a normal file system, but BACKING holds, at every moment, only what a
power cut at that moment would leave:

- file data (writes, truncations) reaches BACKING when the file is fsynced or fdatasynced;
- directory entries (create, rename, unlink, link, mkdir, rmdir) reach BACKING when that directory is fsynced.

Until then they live in memory: dirty 4 KiB pages per file, and per directory the live entries beside the durable
ones. This is the strict POSIX reading, with no help from a journal that happens to commit more (ext4 makes a new
file's entry durable with the file's own fsync; we don't), so it is the worst case an application must survive.

Signals: SIGUSR1 is the power cut: the volatile layer is dropped, the file system is unmounted and a line
"cut {json}" says what was dropped. SIGTERM or SIGINT is a clean unmount: everything is synced first ("clean").
Stop the processes using the mount before either (a cut with a live writer is not a power cut, it is a crash of
the file system alone).

Storage: the durable data of every file lives in one hidden file per inode in BACKING.stage (a sibling of BACKING,
created fresh at mount, removed at unmount), and each durable name in BACKING is a hard link to it, so an fsync
writes the data once and every durable name sees it. A file whose entry never became durable exists only in the
stage directory, which a cut removes: the power cut's orphan.

Built on pyfuse3 (Debian python3-pyfuse3); run it with /usr/bin/python3, which has it.
"""

import errno
import json
import os
import shutil
import signal
import stat
import sys
import time

import pyfuse3
import trio

PAGE = 4096
NEVER = float("inf")


class Node:
    """One inode. Files keep live dirty pages over their durable data; directories keep live and durable entries."""

    def __init__(self, ino, mode):
        self.ino = ino
        self.mode = mode
        self.nlink = 0            # live directory entries naming this node
        self.lookups = 0          # kernel references (lookup/create/mkdir/link minus forget)
        self.opens = 0
        self.name = b""           # last live name, for reports
        now = time.time_ns()
        self.atime_ns = self.mtime_ns = self.ctime_ns = now
        # files
        self.fd = None            # the stage file: this inode's durable data
        self.durable_size = 0
        self.size = 0             # live size
        self.pages = {}           # page index -> bytearray(PAGE), live contents not yet synced
        self.zero_from = NEVER    # a truncation since the last sync: durable bytes from here on read as zeros
        self.durable_refs = 0     # durable directory entries naming this node
        # directories
        self.live = {}            # name -> Node
        self.durable = {}         # name -> Node, as of this directory's last fsync
        self.durable_parent = None
        self.durable_name = None

    @property
    def is_dir(self):
        return stat.S_ISDIR(self.mode)

    def dirty(self):
        return bool(self.pages) or self.zero_from != NEVER or self.size != self.durable_size


class PowerCutFs(pyfuse3.Operations):

    def __init__(self, backing, stage):
        super().__init__()
        self.backing = backing
        self.stage = stage
        self.nodes = {}
        self.next_ino = pyfuse3.ROOT_INODE
        self.handles = {}
        self.next_fh = 1
        self.mode_on_exit = None   # "cut" or "clean"
        root = self._new_node(stat.S_IFDIR | 0o755)
        root.nlink = 1
        root.lookups = 1
        self._import(root, backing)

    # ---- bookkeeping -------------------------------------------------------------------------------------------

    def _new_node(self, mode):
        node = Node(self.next_ino, mode)
        self.next_ino += 1
        self.nodes[node.ino] = node
        if not node.is_dir:
            node.fd = os.open(self._stage_path(node), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        return node

    def _stage_path(self, node):
        return os.path.join(self.stage, str(node.ino))

    def _import(self, dir_node, path):
        """What BACKING holds at mount is durable by definition: every entry starts out both live and durable."""
        for entry in os.scandir(path):
            name = os.fsencode(entry.name)
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                child = self._new_node(st.st_mode)
                child.durable_parent = dir_node
                child.durable_name = name
                self._import(child, entry.path)
            elif stat.S_ISREG(st.st_mode):
                child = Node(self.next_ino, st.st_mode)
                self.next_ino += 1
                self.nodes[child.ino] = child
                os.link(entry.path, self._stage_path(child))
                child.fd = os.open(self._stage_path(child), os.O_RDWR)
                child.size = child.durable_size = st.st_size
                child.durable_refs = 1
            else:
                continue  # a test file system: sockets, devices and symlinks are not carried over
            child.nlink = 1
            child.name = name
            dir_node.live[name] = child
            dir_node.durable[name] = child

    def _backing_path(self, dir_node):
        """Where a directory is durable in BACKING, or None when a cut now would lose it."""
        if dir_node.ino == pyfuse3.ROOT_INODE:
            return self.backing
        if dir_node.durable_parent is None:
            return None
        parent = self._backing_path(dir_node.durable_parent)
        return None if parent is None else os.path.join(parent, os.fsdecode(dir_node.durable_name))

    def _reap(self, node):
        """Forgets an inode nobody can reach any more: no live name, no durable name, not open, not looked up."""
        if node.nlink or node.opens or node.lookups or node.durable_refs or node.ino == pyfuse3.ROOT_INODE:
            return
        if node.fd is not None:
            os.close(node.fd)
            os.unlink(self._stage_path(node))
            node.fd = None
        self.nodes.pop(node.ino, None)

    def _node(self, ino):
        node = self.nodes.get(ino)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return node

    def _attr(self, node):
        a = pyfuse3.EntryAttributes()
        a.st_ino = node.ino
        a.generation = 0
        # Every change goes through this process, so the kernel may cache what it was told.
        a.entry_timeout = 1
        a.attr_timeout = 1
        a.st_mode = node.mode
        a.st_nlink = max(node.nlink, 1) + (1 if node.is_dir else 0)
        a.st_uid = os.getuid()
        a.st_gid = os.getgid()
        a.st_rdev = 0
        a.st_size = 0 if node.is_dir else node.size
        a.st_blksize = PAGE
        a.st_blocks = (a.st_size + 511) // 512
        a.st_atime_ns = node.atime_ns
        a.st_mtime_ns = node.mtime_ns
        a.st_ctime_ns = node.ctime_ns
        return a

    def _entry(self, node):
        node.lookups += 1
        return self._attr(node)

    def _dir(self, ino):
        node = self._node(ino)
        if not node.is_dir:
            raise pyfuse3.FUSEError(errno.ENOTDIR)
        return node

    def _touch(self, *nodes):
        now = time.time_ns()
        for n in nodes:
            n.mtime_ns = n.ctime_ns = now

    # ---- file data: dirty pages over the durable stage file ---------------------------------------------------

    def _durable_bytes(self, node, off, size):
        """The durable bytes in [off, off+size) as they read now: zeros past a pending truncation or the end."""
        limit = min(node.durable_size, node.zero_from)
        data = os.pread(node.fd, max(0, min(size, limit - off)), off) if off < limit else b""
        return data + bytes(size - len(data))

    def _page(self, node, index):
        page = node.pages.get(index)
        if page is None:
            page = bytearray(self._durable_bytes(node, index * PAGE, PAGE))
            node.pages[index] = page
        return page

    def _read(self, node, off, size):
        end = min(off + size, node.size)
        if off >= end:
            return b""
        out = bytearray(self._durable_bytes(node, off, end - off))
        for index in range(off // PAGE, (end - 1) // PAGE + 1):
            page = node.pages.get(index)
            if page is not None:
                start = max(off, index * PAGE)
                stop = min(end, (index + 1) * PAGE)
                out[start - off:stop - off] = page[start - index * PAGE:stop - index * PAGE]
        return bytes(out)

    def _write(self, node, off, buf):
        pos = 0
        while pos < len(buf):
            index = (off + pos) // PAGE
            inner = (off + pos) % PAGE
            n = min(PAGE - inner, len(buf) - pos)
            self._page(node, index)[inner:inner + n] = buf[pos:pos + n]
            pos += n
        node.size = max(node.size, off + len(buf))

    def _truncate(self, node, size):
        if size < node.size:
            for index in [i for i in node.pages if i * PAGE >= size]:
                del node.pages[index]
            last = node.pages.get(size // PAGE)
            if last is not None:
                inner = size % PAGE
                last[inner:] = bytes(PAGE - inner)
            node.zero_from = min(node.zero_from, size)
        node.size = size

    def _sync_data(self, node):
        if node.is_dir or not node.dirty():
            return
        if node.zero_from != NEVER:
            os.ftruncate(node.fd, min(node.zero_from, node.durable_size))
        os.ftruncate(node.fd, node.size)
        for index, page in node.pages.items():
            start = index * PAGE
            if start < node.size:
                os.pwrite(node.fd, page[:min(PAGE, node.size - start)], start)
        node.pages.clear()
        node.zero_from = NEVER
        node.durable_size = node.size

    # ---- directory entries: live against durable ---------------------------------------------------------------

    def _sync_dir(self, dir_node):
        path = self._backing_path(dir_node)
        old, new = dir_node.durable, dict(dir_node.live)
        for name, node in old.items():
            if new.get(name) is node:
                continue
            if path is not None:
                target = os.path.join(path, os.fsdecode(name))
                if node.is_dir:
                    shutil.rmtree(target)
                else:
                    os.unlink(target)
            if node.is_dir:
                node.durable_parent = None
            else:
                node.durable_refs -= 1
        for name, node in new.items():
            if old.get(name) is node:
                continue
            if node.is_dir:
                node.durable_parent = dir_node
                node.durable_name = name
                if path is not None:
                    self._materialize(node, os.path.join(path, os.fsdecode(name)))
            else:
                node.durable_refs += 1
                if path is not None:
                    os.link(self._stage_path(node), os.path.join(path, os.fsdecode(name)))
        dir_node.durable = new
        for node in list(old.values()):
            self._reap(node)

    def _materialize(self, dir_node, path):
        """A directory just became reachable in BACKING: create it with the entries that were durable inside it."""
        os.mkdir(path, stat.S_IMODE(dir_node.mode))
        for name, child in dir_node.durable.items():
            target = os.path.join(path, os.fsdecode(name))
            if child.is_dir:
                self._materialize(child, target)
            else:
                os.link(self._stage_path(child), target)

    def sync_all(self):
        for node in list(self.nodes.values()):
            self._sync_data(node)
        pending = [self.nodes[pyfuse3.ROOT_INODE]]
        while pending:
            d = pending.pop()
            self._sync_dir(d)
            pending.extend(child for child in d.live.values() if child.is_dir)

    def pending(self):
        """What a cut now would drop: files with unsynced data, and unsynced entry changes per directory."""
        files = [(os.fsdecode(n.name), self._dirty_bytes(n)) for n in self.nodes.values() if not n.is_dir and n.dirty()]
        entries = []
        for d in self.nodes.values():
            if not d.is_dir:
                continue
            for name, node in d.durable.items():
                if d.live.get(name) is not node:
                    entries.append("-" + os.fsdecode(name))
            for name, node in d.live.items():
                if d.durable.get(name) is not node:
                    entries.append("+" + os.fsdecode(name))
        return {"dirty_files": sorted(f for f, _ in files),
                "dirty_bytes": sum(b for _, b in files),
                "unsynced_entries": sorted(entries)}

    @staticmethod
    def _dirty_bytes(node):
        return max(len(node.pages) * PAGE, abs(node.size - node.durable_size))

    # ---- FUSE operations -----------------------------------------------------------------------------------------

    async def lookup(self, parent_inode, name, ctx):
        parent = self._dir(parent_inode)
        if name == b".":
            return self._entry(parent)
        node = parent.live.get(name)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        return self._entry(node)

    async def forget(self, inode_list):
        for ino, count in inode_list:
            node = self.nodes.get(ino)
            if node is not None:
                node.lookups = max(0, node.lookups - count)
                self._reap(node)

    async def getattr(self, inode, ctx):
        return self._attr(self._node(inode))

    async def setattr(self, inode, attr, fields, fh, ctx):
        node = self._node(inode)
        if fields.update_size:
            if node.is_dir:
                raise pyfuse3.FUSEError(errno.EISDIR)
            self._truncate(node, attr.st_size)
            self._touch(node)
        if fields.update_mode:
            node.mode = (node.mode & ~0o7777) | (attr.st_mode & 0o7777)
        if fields.update_atime:
            node.atime_ns = attr.st_atime_ns
        if fields.update_mtime:
            node.mtime_ns = attr.st_mtime_ns
        node.ctime_ns = time.time_ns()
        return self._attr(node)

    async def statfs(self, ctx):
        st = os.statvfs(self.backing)
        out = pyfuse3.StatvfsData()
        for field in ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree", "f_favail",
                      "f_namemax"):
            setattr(out, field, getattr(st, field))
        return out

    async def opendir(self, inode, ctx):
        self._dir(inode)
        return inode

    async def readdir(self, fh, start_id, token):
        d = self._dir(fh)
        entries = sorted(d.live.items())
        for i in range(start_id, len(entries)):
            name, node = entries[i]
            if not pyfuse3.readdir_reply(token, name, self._entry(node), i + 1):
                node.lookups -= 1  # not handed to the kernel after all
                break

    async def releasedir(self, fh):
        pass

    async def fsyncdir(self, fh, datasync):
        self._sync_dir(self._dir(fh))

    async def mkdir(self, parent_inode, name, mode, ctx):
        parent = self._dir(parent_inode)
        if name in parent.live:
            raise pyfuse3.FUSEError(errno.EEXIST)
        node = self._new_node(stat.S_IFDIR | (mode & 0o7777))
        return self._link_in(parent, name, node)

    async def rmdir(self, parent_inode, name, ctx):
        parent = self._dir(parent_inode)
        node = parent.live.get(name)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        if not node.is_dir:
            raise pyfuse3.FUSEError(errno.ENOTDIR)
        if node.live:
            raise pyfuse3.FUSEError(errno.ENOTEMPTY)
        del parent.live[name]
        node.nlink -= 1
        self._touch(parent)
        self._reap(node)

    async def create(self, parent_inode, name, mode, flags, ctx):
        parent = self._dir(parent_inode)
        if name in parent.live:
            raise pyfuse3.FUSEError(errno.EEXIST)
        node = self._new_node(stat.S_IFREG | (mode & 0o7777))
        attr = self._link_in(parent, name, node)
        return pyfuse3.FileInfo(fh=self._open_handle(node)), attr

    async def link(self, inode, new_parent_inode, new_name, ctx):
        node = self._node(inode)
        parent = self._dir(new_parent_inode)
        if node.is_dir:
            raise pyfuse3.FUSEError(errno.EPERM)
        if new_name in parent.live:
            raise pyfuse3.FUSEError(errno.EEXIST)
        return self._link_in(parent, new_name, node)

    def _link_in(self, parent, name, node):
        parent.live[name] = node
        node.nlink += 1
        node.name = name
        self._touch(parent, node)
        return self._entry(node)

    async def unlink(self, parent_inode, name, ctx):
        parent = self._dir(parent_inode)
        node = parent.live.get(name)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        if node.is_dir:
            raise pyfuse3.FUSEError(errno.EISDIR)
        del parent.live[name]
        node.nlink -= 1
        self._touch(parent)
        node.ctime_ns = parent.mtime_ns
        self._reap(node)

    async def rename(self, parent_inode_old, name_old, parent_inode_new, name_new, flags, ctx):
        old_parent = self._dir(parent_inode_old)
        new_parent = self._dir(parent_inode_new)
        node = old_parent.live.get(name_old)
        if node is None:
            raise pyfuse3.FUSEError(errno.ENOENT)
        if flags & pyfuse3.RENAME_EXCHANGE:
            raise pyfuse3.FUSEError(errno.EINVAL)
        if node.is_dir:
            # A directory's durable place would need a second name while only one parent is synced; RocksDB never
            # renames directories, so this file system does not model it.
            raise pyfuse3.FUSEError(errno.EXDEV)
        replaced = new_parent.live.get(name_new)
        if replaced is node:
            return
        if replaced is not None:
            if flags & pyfuse3.RENAME_NOREPLACE:
                raise pyfuse3.FUSEError(errno.EEXIST)
            if replaced.is_dir:
                raise pyfuse3.FUSEError(errno.EISDIR)
        del old_parent.live[name_old]
        new_parent.live[name_new] = node
        node.name = name_new
        self._touch(old_parent, new_parent)
        if replaced is not None:
            replaced.nlink -= 1
            self._reap(replaced)

    def _open_handle(self, node):
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = node
        node.opens += 1
        return fh

    async def open(self, inode, flags, ctx):
        node = self._node(inode)
        if node.is_dir:
            raise pyfuse3.FUSEError(errno.EISDIR)
        return pyfuse3.FileInfo(fh=self._open_handle(node))

    async def read(self, fh, off, size):
        return self._read(self.handles[fh], off, size)

    async def write(self, fh, off, buf):
        node = self.handles[fh]
        self._write(node, off, buf)
        self._touch(node)
        return len(buf)

    async def fsync(self, fh, datasync):
        # fdatasync persists the size too when the data needs it, and this model has no other metadata to keep.
        self._sync_data(self.handles[fh])

    async def flush(self, fh):
        pass

    async def release(self, fh):
        node = self.handles.pop(fh)
        node.opens -= 1
        self._reap(node)

    async def getxattr(self, inode, name, ctx):
        raise pyfuse3.FUSEError(pyfuse3.ENOATTR)

    async def listxattr(self, inode, ctx):
        return []


async def run(fs):
    async with trio.open_nursery() as nursery:
        async def on_signal():
            with trio.open_signal_receiver(signal.SIGUSR1, signal.SIGTERM, signal.SIGINT) as signals:
                async for signum in signals:
                    fs.mode_on_exit = "cut" if signum == signal.SIGUSR1 else "clean"
                    pyfuse3.terminate()
                    return
        nursery.start_soon(on_signal)
        await pyfuse3.main()
        nursery.cancel_scope.cancel()


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    backing = os.path.abspath(sys.argv[1])
    mountpoint = os.path.abspath(sys.argv[2])
    stage = backing.rstrip("/") + ".stage"
    # A stage left by an earlier run holds only orphans and unsynced data: exactly what a power cut erases.
    shutil.rmtree(stage, ignore_errors=True)
    os.mkdir(stage, 0o700)
    if os.stat(stage).st_dev != os.stat(backing).st_dev:
        sys.exit(f"powercutfs: {stage} must be on the same file system as {backing} (durable names are hard links)")
    fs = PowerCutFs(backing, stage)
    options = set(pyfuse3.default_options)
    options.add("fsname=powercutfs")
    pyfuse3.init(fs, mountpoint, options)
    print(f"mounted {mountpoint} over {backing}", flush=True)
    try:
        trio.run(run, fs)
    finally:
        if fs.mode_on_exit == "clean":
            fs.sync_all()
            report = "clean"
        else:
            report = "cut " + json.dumps(fs.pending(), sort_keys=True)
        pyfuse3.close(unmount=True)
        shutil.rmtree(stage, ignore_errors=True)
        print(report, flush=True)


if __name__ == "__main__":
    main()
