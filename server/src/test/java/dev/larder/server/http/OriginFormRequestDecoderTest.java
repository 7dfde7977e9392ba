package dev.larder.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Which request targets are rewritten to origin form, and to what. */
class OriginFormRequestDecoderTest {

    @Test
    void httpAndHttpsUrisBecomeTheirPathAndQuery() {
        assertEquals("/v0/entity?id=k", OriginFormRequestDecoder.originForm("http://h/v0/entity?id=k"));
        assertEquals("/v0/status", OriginFormRequestDecoder.originForm("HTTPS://user@h:8443/v0/status"));
        assertEquals("/", OriginFormRequestDecoder.originForm("http://h"));
        assertEquals("/?id=k", OriginFormRequestDecoder.originForm("http://h?id=k"));
        assertEquals("/", OriginFormRequestDecoder.originForm("http://"));
    }

    @Test
    void everythingElseIsLeftForTheRoutesToRefuse() {
        assertEquals("/v0/status", OriginFormRequestDecoder.originForm("/v0/status"));
        assertEquals("*", OriginFormRequestDecoder.originForm("*"));
        assertEquals("h:443", OriginFormRequestDecoder.originForm("h:443"));
        assertEquals("ftp://h/v0/status", OriginFormRequestDecoder.originForm("ftp://h/v0/status"));
        assertEquals("v0/status", OriginFormRequestDecoder.originForm("v0/status"));
        assertEquals("", OriginFormRequestDecoder.originForm(""));
    }
}
