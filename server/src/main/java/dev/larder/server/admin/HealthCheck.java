package dev.larder.server.admin;

import java.util.Optional;

/** One condition of readiness, asked on every {@code /health/ready}; must be cheap and must not block. */
@FunctionalInterface
public interface HealthCheck {

    /** Empty when the condition holds, otherwise why not, in one line. */
    Optional<String> problem();
}
