package dev.larder.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * One user key per data block of a RocksDB block-based table file, read from the file's own index block: a seek to
 * the i-th key lands in the i-th data block, so a read that seeks to each in turn loads every data block once.
 *
 * <p>Why: {@link NewTableWarmer} reads each new table file into the block cache, and walking it key by key cost two
 * JNI calls per key, about 50 per 4 KiB block, where one seek per block loads the same blocks (docs/performance.md,
 * "Session 80"). RocksJava does not give a table's block positions, so they come from the file: the footer names the
 * index block (up to format version 5 itself, from 6 through the metaindex block), whose i-th entry is a separator
 * {@code s} with {@code last key of block i <= s < first key of block i+1}. The user key just after {@code s}
 * ({@code s + 0x00}) is therefore the first key of block i+1 or before it; only when older versions of one user key
 * run over from block i into block i+1 (kept for a snapshot) does the seek pass them, and the block they fill.
 *
 * <p>Only the layouts this store writes are read: a single-level index block stored uncompressed (see
 * {@code setEnableIndexCompression(false)} in {@link RocksDbStore}), format versions 2 to 7. Anything else, or a file
 * that does not parse, gives an empty result and the caller walks the file key by key as before. Checksums are not
 * verified: a wrong key only makes a seek land elsewhere, and RocksDB checks every block it reads.
 */
final class DataBlockSeekKeys {

    private static final long BLOCK_BASED_TABLE_MAGIC = 0x88e241b785f4cff7L;
    private static final int FOOTER_LENGTH = 53; // format_version >= 1: checksum type, 40, version, magic
    private static final int BLOCK_TRAILER = 5; // compression type, checksum
    private static final byte NO_COMPRESSION = 0;
    private static final int MAX_FORMAT_VERSION = 7;
    private static final byte[] INDEX_BLOCK_NAME = "rocksdb.index".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXTENDED_MAGIC = {0x3e, 0x00, 0x7a, 0x00};
    // Low bits of a block's last word count its restart points; the high ones flag layouts (data_block_footer.cc).
    private static final int SEPARATED_VALUES_BIT = 1 << 28;
    private static final int NUM_RESTARTS_MASK = (1 << 28) - 1;
    /** Index blocks larger than this are not read (a 4 KiB-block table of 1 GiB has an index of about 8 MiB). */
    private static final int MAX_INDEX_BYTES = 64 << 20;

    private DataBlockSeekKeys() {
    }

    /**
     * The seek keys of {@code tableFile}'s data blocks in order, the first one empty; empty when the file's layout
     * is not one this reads. {@code indexKeysAreUserKeys} and {@code indexValuesAreDeltaEncoded} come from the
     * table's properties ({@code rocksdb.index.key.is.user.key}, {@code rocksdb.index.value.is.delta.encoded}).
     */
    static Optional<List<byte[]>> read(Path tableFile, boolean indexKeysAreUserKeys,
            boolean indexValuesAreDeltaEncoded) throws IOException {
        try (FileChannel file = FileChannel.open(tableFile, StandardOpenOption.READ)) {
            long size = file.size();
            if (size < FOOTER_LENGTH) {
                return Optional.empty();
            }
            long footerOffset = size - FOOTER_LENGTH;
            ByteBuffer footer = readFully(file, footerOffset, FOOTER_LENGTH);
            if (footer.getLong(FOOTER_LENGTH - 8) != BLOCK_BASED_TABLE_MAGIC) {
                return Optional.empty();
            }
            int formatVersion = footer.getInt(FOOTER_LENGTH - 12);
            long[] index;
            if (formatVersion >= 6 && formatVersion <= MAX_FORMAT_VERSION) {
                for (int i = 0; i < EXTENDED_MAGIC.length; i++) {
                    if (footer.get(1 + i) != EXTENDED_MAGIC[i]) {
                        return Optional.empty();
                    }
                }
                // Part 2: extended magic, footer checksum, base context checksum, metaindex size; the metaindex
                // block ends right before the footer and names the index block.
                long metaindexSize = Integer.toUnsignedLong(footer.getInt(1 + 12));
                long metaindexOffset = footerOffset - BLOCK_TRAILER - metaindexSize;
                if (metaindexOffset < 0 || metaindexSize == 0 || metaindexSize > MAX_INDEX_BYTES) {
                    return Optional.empty();
                }
                Optional<ByteBuffer> metaindex = uncompressedBlock(file, metaindexOffset, (int) metaindexSize);
                index = metaindex.isEmpty() ? null : indexHandle(metaindex.get());
            } else if (formatVersion >= 2 && formatVersion < 6) {
                // Part 2: the metaindex's handle, then the index's.
                Cursor handles = new Cursor(footer, 1, 1 + 40);
                handles.varint64();
                handles.varint64();
                index = new long[] {handles.varint64(), handles.varint64()};
            } else {
                return Optional.empty();
            }
            if (index == null || index[0] < 0 || index[1] <= 0 || index[1] > MAX_INDEX_BYTES
                    || index[0] + index[1] + BLOCK_TRAILER > size) {
                return Optional.empty();
            }
            Optional<ByteBuffer> indexBlock = uncompressedBlock(file, index[0], (int) index[1]);
            if (indexBlock.isEmpty()) {
                return Optional.empty();
            }
            return seekKeys(indexBlock.get(), indexKeysAreUserKeys, indexValuesAreDeltaEncoded);
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            return Optional.empty(); // a truncated or foreign file
        }
    }

    /** The index block's handle (offset, size) from the metaindex block's entries, or null. */
    private static long[] indexHandle(ByteBuffer metaindex) {
        Block block = Block.of(metaindex);
        if (block == null) {
            return null;
        }
        Cursor entries = new Cursor(metaindex, 0, block.entriesEnd());
        byte[] key = new byte[0];
        while (entries.hasMore()) {
            int shared = entries.varint32();
            int nonShared = entries.varint32();
            int valueLength = entries.varint32();
            key = entries.key(key, shared, nonShared);
            int valueStart = entries.position();
            if (Arrays.equals(key, INDEX_BLOCK_NAME)) {
                return new long[] {entries.varint64(), entries.varint64()};
            }
            entries.seek(valueStart + valueLength);
        }
        return null;
    }

    private static Optional<List<byte[]>> seekKeys(ByteBuffer index, boolean userKeys, boolean deltaValues) {
        Block block = Block.of(index);
        if (block == null) {
            return Optional.empty();
        }
        Cursor entries = new Cursor(index, 0, block.entriesEnd());
        List<byte[]> keys = new ArrayList<>();
        keys.add(new byte[0]);
        byte[] separator = new byte[0];
        while (entries.hasMore()) {
            int shared = entries.varint32();
            int nonShared = entries.varint32();
            int valueLength = deltaValues ? -1 : entries.varint32();
            separator = entries.key(separator, shared, nonShared);
            if (valueLength >= 0) {
                entries.seek(entries.position() + valueLength);
            } else if (shared == 0) {
                entries.varint64(); // a whole handle: offset and size
                entries.varint64();
            } else {
                entries.varint64(); // the size's difference from the previous block's, zigzag-coded
            }
            int userKeyLength = userKeys ? separator.length : separator.length - 8; // less sequence and type
            if (userKeyLength < 0) {
                return Optional.empty();
            }
            byte[] next = new byte[userKeyLength + 1]; // the separator's user key, then 0x00
            System.arraycopy(separator, 0, next, 0, userKeyLength);
            keys.add(next);
        }
        // The last separator only bounds the last block: no block follows it.
        keys.remove(keys.size() - 1);
        return keys.isEmpty() ? Optional.empty() : Optional.of(keys);
    }

    private static Optional<ByteBuffer> uncompressedBlock(FileChannel file, long offset, int size)
            throws IOException {
        ByteBuffer withTrailer = readFully(file, offset, size + BLOCK_TRAILER);
        if (withTrailer.get(size) != NO_COMPRESSION) {
            return Optional.empty();
        }
        return Optional.of(withTrailer.limit(size).slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    private static ByteBuffer readFully(FileChannel file, long offset, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (file.read(buffer, offset + buffer.position()) < 0) {
                throw new IndexOutOfBoundsException("table file ends before " + (offset + length));
            }
        }
        return buffer.flip();
    }

    /** A block's entries region: everything before its restart points and its last word. */
    private record Block(int entriesEnd) {
        static Block of(ByteBuffer block) {
            int size = block.limit();
            if (size < 4) {
                return null;
            }
            int packed = block.getInt(size - 4);
            if ((packed & SEPARATED_VALUES_BIT) != 0) {
                return null; // values stored apart from keys: not a layout this store writes
            }
            long restarts = packed & NUM_RESTARTS_MASK;
            long entriesEnd = size - 4 - 4 * restarts;
            return entriesEnd < 0 ? null : new Block((int) entriesEnd);
        }
    }

    /** Reads varints and prefix-compressed keys from a block, within {@code [position, end)}. */
    private static final class Cursor {
        private final ByteBuffer bytes;
        private final int end;
        private int position;

        Cursor(ByteBuffer bytes, int position, int end) {
            this.bytes = bytes;
            this.position = position;
            this.end = end;
        }

        boolean hasMore() {
            return position < end;
        }

        int position() {
            return position;
        }

        void seek(int to) {
            if (to < position || to > end) {
                throw new IndexOutOfBoundsException("entry past its block: " + to);
            }
            position = to;
        }

        int varint32() {
            long value = varint64();
            if (value > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("length out of range: " + value);
            }
            return (int) value;
        }

        long varint64() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (position >= end) {
                    throw new IndexOutOfBoundsException("varint past its block");
                }
                byte b = bytes.get(position++);
                value |= (long) (b & 0x7f) << shift;
                if (b >= 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("varint longer than 10 bytes");
        }

        /** The previous key's first {@code shared} bytes followed by the next {@code nonShared} bytes here. */
        byte[] key(byte[] previous, int shared, int nonShared) {
            if (shared > previous.length || nonShared > end - position) {
                throw new IndexOutOfBoundsException("key past its block");
            }
            byte[] key = Arrays.copyOf(previous, shared + nonShared);
            bytes.get(position, key, shared, nonShared);
            position += nonShared;
            return key;
        }
    }
}
