package dev.larder.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What the generator sends: a weighted mix of operations (one operation is a mix of one) over the keys
 * {@code k1..k<keys>}.
 *
 * @param mix            operations with their relative weights, in the order given (weights > 0)
 * @param keys           size of the key space read by get/delete/range and written by random-id puts
 * @param distribution   how get/delete/range pick a key
 * @param randomPutIds   false: puts write new ids {@code k<n+1>, k<n+2>, ...} (after the prefilled ones, shared
 *                       by all threads and continued across the runs of a sweep); true: uniform over the key space
 * @param valueSize      PUT body size, fixed or a range
 */
public record Workload(List<Weighted> mix, long keys, KeyDistribution distribution, boolean randomPutIds,
                       ValueSize valueSize) {

    /**
     * One entry of a mix.
     *
     * @param operation the request kind
     * @param weight    its relative share (> 0)
     */
    public record Weighted(Operation operation, int weight) {
        public Weighted {
            if (weight <= 0) {
                throw new IllegalArgumentException("mix: " + operation.flag() + "=" + weight + " (expected: > 0)");
            }
        }
    }

    public Workload {
        mix = List.copyOf(mix);
        if (mix.isEmpty()) {
            throw new IllegalArgumentException("mix: empty (expected: at least one operation)");
        }
        if (keys < 1) {
            throw new IllegalArgumentException("keys: " + keys + " (expected: >= 1)");
        }
        if (distribution == null || valueSize == null) {
            throw new IllegalArgumentException("distribution and value size are required");
        }
        Map<Operation, Boolean> seen = new EnumMap<>(Operation.class);
        for (Weighted w : mix) {
            if (seen.put(w.operation(), Boolean.TRUE) != null) {
                throw new IllegalArgumentException("mix: " + w.operation().flag() + " given twice");
            }
        }
    }

    /** A workload of a single operation. */
    public static Workload of(Operation op, long keys, KeyDistribution distribution, boolean randomPutIds,
                              ValueSize valueSize) {
        return new Workload(List.of(new Weighted(op, 1)), keys, distribution, randomPutIds, valueSize);
    }

    /** Parses {@code get=90,put=10} (weights are relative, they need not add up to 100). */
    public static List<Weighted> parseMix(String text) {
        List<Weighted> mix = new ArrayList<>();
        NamedValues.parse(text, "mix", "expected: op=weight, e.g. get=90,put=10", (part, name, value) -> {
            Operation op = Operation.fromFlag(name);
            int weight;
            try {
                weight = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("mix: '" + part + "' (expected: an integer weight)");
            }
            mix.add(new Weighted(op, weight));
        });
        return Collections.unmodifiableList(mix);
    }

    /** True if some operation reads keys, so prefilling makes sense. */
    public boolean reads() {
        return mix.stream().anyMatch(w -> w.operation() == Operation.GET || w.operation() == Operation.RANGE);
    }

    /** {@code get} or {@code get=90,put=10}. */
    public String describe() {
        if (mix.size() == 1) {
            return mix.get(0).operation().flag();
        }
        StringBuilder sb = new StringBuilder();
        for (Weighted w : mix) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(w.operation().flag()).append('=').append(w.weight());
        }
        return sb.toString();
    }
}
