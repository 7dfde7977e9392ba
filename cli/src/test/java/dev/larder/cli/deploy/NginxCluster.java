package dev.larder.cli.deploy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Debian's nginx running the cluster template from deploy/nginx/templates/, rendered the way the nginx image
 * renders it, inside a minimal main configuration with every path under a temporary directory.
 */
final class NginxCluster implements AutoCloseable {

    static final String TEMPLATE = "deploy/nginx/templates/default.conf.template";

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*)}");

    private final Process process;
    private final Path dir;
    private final int port;

    private NginxCluster(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * What the image's 20-envsubst-on-templates.sh does: {@code envsubst} restricted to the defined variables whose
     * names match {@code filter}, so nginx's own {@code $variables} stay. A variable the template uses but nobody
     * defined would stay literal and break the configuration: that fails here already.
     */
    static String render(String template, Map<String, String> env, String filter) {
        Pattern allowed = Pattern.compile(filter);
        Matcher m = VARIABLE.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String value = env.get(name);
            if (value == null || !allowed.matcher(name).find()) {
                throw new IllegalArgumentException("template variable ${" + name + "} would not be substituted");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** Starts nginx in the foreground on {@code serverConf} (http-context configuration listening on {@code port}). */
    static NginxCluster start(Path nginx, Path dir, String serverConf, int port) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path conf = dir.resolve("default.conf");
        Files.writeString(conf, serverConf, StandardCharsets.UTF_8);
        // As root, workers would run as nobody, who cannot enter the test's private temporary directory.
        String user = System.getProperty("user.name").equals("root") ? "user root;\n" : "";
        String main = user
                + "daemon off;\n"
                + "worker_processes 1;\n"
                + "pid " + dir.resolve("nginx.pid") + ";\n"
                + "error_log " + dir.resolve("error.log") + " warn;\n"
                + "events { worker_connections 1024; }\n"
                + "http {\n"
                + "    access_log off;\n"
                + "    client_body_temp_path " + dir.resolve("client_body") + ";\n"
                + "    proxy_temp_path " + dir.resolve("proxy") + ";\n"
                + "    fastcgi_temp_path " + dir.resolve("fastcgi") + ";\n"
                + "    uwsgi_temp_path " + dir.resolve("uwsgi") + ";\n"
                + "    scgi_temp_path " + dir.resolve("scgi") + ";\n"
                + "    include " + conf + ";\n"
                + "}\n";
        Path mainConf = dir.resolve("nginx.conf");
        Files.writeString(mainConf, main, StandardCharsets.UTF_8);
        Process process = new ProcessBuilder(nginx.toString(), "-p", dir.toString(), "-c", mainConf.toString(),
                "-e", dir.resolve("error.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("nginx.out").toFile()).start();
        NginxCluster cluster = new NginxCluster(process, dir, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("nginx exited with " + process.exitValue() + ":\n" + cluster.output());
            }
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return cluster;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        cluster.close();
        throw new IOException("nginx did not listen on " + port + ":\n" + cluster.output());
    }

    String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    /** nginx's output and error log, for failure messages. */
    String output() {
        StringBuilder out = new StringBuilder();
        for (String name : new String[] {"nginx.out", "error.log"}) {
            try {
                out.append("--- ").append(name).append('\n').append(Files.readString(dir.resolve(name)));
            } catch (IOException e) {
                out.append("(no ").append(name).append(")\n");
            }
        }
        return out.toString();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy(); // SIGTERM: nginx's fast shutdown
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
