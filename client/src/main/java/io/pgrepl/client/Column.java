package io.pgrepl.client;

/** A result column as described by RowDescription: its name and type OID. */
public record Column(String name, int typeOid) {}
