package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Which request targets are rewritten to origin form, and to what. */
class OriginFormTest {

    @Test
    void httpAndHttpsUrisBecomeTheirPathAndQuery() {
        assertEquals("/v0/entity?id=k", OriginForm.of("http://h/v0/entity?id=k"));
        assertEquals("/v0/status", OriginForm.of("HTTPS://user@h:8443/v0/status"));
        assertEquals("/", OriginForm.of("http://h"));
        assertEquals("/?id=k", OriginForm.of("http://h?id=k"));
        assertEquals("/", OriginForm.of("http://"));
    }

    @Test
    void everythingElseIsLeftForTheRoutesToRefuse() {
        assertEquals("/v0/status", OriginForm.of("/v0/status"));
        assertEquals("*", OriginForm.of("*"));
        assertEquals("h:443", OriginForm.of("h:443"));
        assertEquals("ftp://h/v0/status", OriginForm.of("ftp://h/v0/status"));
        assertEquals("v0/status", OriginForm.of("v0/status"));
        assertEquals("", OriginForm.of(""));
    }
}
