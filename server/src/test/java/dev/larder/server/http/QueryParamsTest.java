package dev.larder.server.http;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** Parameters decoded to raw bytes, and the route found from a request target without cutting its path out. */
class QueryParamsTest {

    @Test
    void decodesEscapesPlusAndRawBytesToExactlyTheirBytes() {
        assertArrayEquals(new byte[] {0, (byte) 0xff, '\n', 'r', 'a', 'w', ' ', 'k'},
                QueryParams.bytes("/v0/entity?id=%00%Ff%0Araw+k", "id"));
        assertArrayEquals("caf\u00e9".getBytes(ISO_8859_1), QueryParams.bytes("/v0/entity?id=caf\u00e9", "id"));
        assertArrayEquals("b".getBytes(ISO_8859_1), QueryParams.bytes("/p?a=1&id=b&id=c#frag", "id"));
        assertArrayEquals(new byte[0], QueryParams.bytes("/p?id", "id"));
        assertArrayEquals(new byte[0], QueryParams.bytes("/p?id=", "id"));
        assertNull(QueryParams.bytes("/p?idx=1", "id"));
        assertNull(QueryParams.bytes("/p", "id"));
    }

    @Test
    void malformedEscapesAndWideCharsAreRefused() {
        for (String uri : new String[] {"/p?id=%zz", "/p?id=abc%4", "/p?id=%", "/p?id=%4g&x=1", "/p?id=\u0100"}) {
            assertThrows(QueryParams.MalformedQueryException.class, () -> QueryParams.bytes(uri, "id"), uri);
        }
    }

    @Test
    void theRouteIsFoundFromThePathPartOfTheTarget() {
        Routes.Route entity = Routes.V0.find("/v0/entity");
        assertEquals("/v0/entity", entity.path());
        for (String uri : new String[] {"/v0/entity", "/v0/entity?id=a", "/v0/entity#x", "/v0/entity?"}) {
            assertSame(entity, Routes.V0.find(uri, QueryParams.pathEnd(uri)), uri);
        }
        assertSame(Routes.V0.find("/v0/entities"), Routes.V0.find("/v0/entities?start=a", 12));
        for (String uri : new String[] {"/v0/entit?id=a", "/v0/entityx?id=a", "/v0/entity/?id=a", "/?id=a", "?id=a"}) {
            assertNull(Routes.V0.find(uri, QueryParams.pathEnd(uri)), uri);
        }
        assertEquals("/v0/entit", QueryParams.path("/v0/entit?id=a"));
    }
}
