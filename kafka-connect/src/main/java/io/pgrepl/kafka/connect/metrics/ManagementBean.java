package io.pgrepl.kafka.connect.metrics;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One management bean (the JMX signal or notification channel) in the platform MBean server,
 * registered as {@link ConnectorMetrics} registers the metrics: on a thread of its own, tried again
 * every 5 s, 12 times, while the name is still held by a task that has not unregistered yet, so a
 * restart is never failed by its predecessor's bean.
 */
public final class ManagementBean implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ManagementBean.class);
    private static final int ATTEMPTS = 12;
    private static final Duration RETRY = Duration.ofSeconds(5);

    private final Object bean;
    private final ObjectName name;
    private final Thread registration;
    private boolean registered;
    private boolean closed;

    private ManagementBean(Object bean, ObjectName name) {
        this.bean = bean;
        this.name = name;
        this.registration = new Thread(this::register, "pgrepl-jmx-" + name.getKeyProperty("context") + "-" + name.getKeyProperty("server"));
        registration.setDaemon(true);
    }

    /** Starts registering {@code bean} under {@code name}; {@link #close()} unregisters it. */
    public static ManagementBean start(Object bean, ObjectName name) {
        ManagementBean b = new ManagementBean(bean, name);
        b.registration.start();
        return b;
    }

    public ObjectName name() {
        return name;
    }

    private void register() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            synchronized (this) {
                if (closed) return;
                try {
                    server.registerMBean(bean, name);
                    registered = true;
                    log.info("JMX bean {} registered", name);
                    return;
                } catch (InstanceAlreadyExistsException e) {
                    if (attempt == ATTEMPTS) {
                        log.error("JMX bean {} stays unregistered: the name was still in use after {} attempts", name, ATTEMPTS);
                        return;
                    }
                    log.warn("JMX bean {} is still registered (a task stopping, or another connector with the same topic.prefix);"
                            + " trying again in {} s (attempt {} of {})", name, RETRY.toSeconds(), attempt, ATTEMPTS);
                } catch (JMException | RuntimeException e) {
                    log.error("registering JMX bean {} failed: {}", name, e.toString());
                    return;
                }
            }
            try {
                Thread.sleep(RETRY.toMillis());
            } catch (InterruptedException stopped) {
                return;
            }
        }
    }

    /** Unregisters the bean if this registered it, and stops a registration still trying. */
    @Override
    public void close() {
        registration.interrupt();
        synchronized (this) {
            closed = true;
            if (!registered) return;
            registered = false;
            try {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            } catch (InstanceNotFoundException gone) {
                log.info("JMX bean {} was already unregistered", name);
            } catch (JMException e) {
                log.warn("unregistering JMX bean {} failed: {}", name, e.toString());
            }
        }
    }
}
