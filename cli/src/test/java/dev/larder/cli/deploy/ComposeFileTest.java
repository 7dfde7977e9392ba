package dev.larder.cli.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml against the Compose Specification's JSON schema, vendored in deploy/schema/ (nothing is
 * fetched at test time). The file is read as Compose reads it: anchors and merge keys resolved first.
 */
class ComposeFileTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonSchema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        Path file = Repo.file("deploy/schema/compose-spec.json");
        JsonNode schemaNode = JSON.readTree(file.toFile());
        // The schema's $id is relative ("compose_spec.json"): its own location is the base it resolves against.
        // "deprecated" (an annotation from later drafts) validates nothing: declared so it is not warned about.
        JsonMetaSchema draft7 = JsonMetaSchema.builder(JsonMetaSchema.getV7())
                .keyword(new NonValidationKeyword("deprecated")).build();
        schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V7, builder -> builder.metaSchema(draft7))
                .getSchema(SchemaLocation.of(file.toUri().toString()), schemaNode);
    }

    @Test
    void composeFileFollowsTheComposeSpecification() {
        Set<ValidationMessage> errors = schema.validate(JSON.valueToTree(Repo.yaml(Compose.FILE)));
        assertTrue(errors.isEmpty(), () -> Compose.FILE + " violates the Compose Specification:\n" + errors);
    }

    /** The validator really validates: misspelled keys and wrong types in the same file are reported. */
    @Test
    void schemaRejectsMistakesTheComposeFileCouldHave() {
        String original = Repo.text(Compose.FILE);
        String misspelled = original.replaceFirst("stop_grace_period:", "stop_grace_periode:");
        assertFalse(misspelled.equals(original));
        Set<ValidationMessage> typo = schema.validate(JSON.valueToTree(Repo.parseYaml(misspelled)));
        assertFalse(typo.isEmpty(), "a misspelled key must be reported");
        assertTrue(typo.toString().contains("stop_grace_periode"), typo.toString());

        String wrongType = original.replaceFirst("condition: service_healthy", "condition: when_healthy");
        Set<ValidationMessage> enumError = schema.validate(JSON.valueToTree(Repo.parseYaml(wrongType)));
        assertFalse(enumError.isEmpty(), "an unknown depends_on condition must be reported");
    }

    @Test
    void everyServiceIsOneOfTheStack() {
        assertEquals(Set.of("larder", "prometheus", "grafana", "larder-1", "larder-2", "larder-3", "nginx"),
                Compose.load().services().keySet());
    }
}
