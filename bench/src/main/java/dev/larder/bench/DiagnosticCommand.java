package dev.larder.bench;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * One of HotSpot's diagnostic commands asked of this JVM through its own MBean server: what
 * {@code jcmd <pid> Compiler.codelist} prints is {@code ask("compilerCodelist")}.
 */
public final class DiagnosticCommand {

    private DiagnosticCommand() {
    }

    /** The command's answer, or an empty text when this JVM has no such command or refused it. */
    public static String ask(String operation, String... arguments) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            Object answer = server.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), operation,
                    new Object[] {arguments}, new String[] {String[].class.getName()});
            return answer instanceof String text ? text : "";
        } catch (JMException | RuntimeException e) {
            return "";
        }
    }
}
