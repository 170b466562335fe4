package io.pgrepl.testkit;

import java.util.Objects;

/** A role of a test server and its password. {@link #toString()} never shows the password. */
public record PgUser(String name, String password) {

    public PgUser {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(password, "password");
    }

    @Override
    public String toString() {
        return "PgUser[name=" + name + "]";
    }
}
