/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.dist;

import io.metaroce.client.MetaRoce;
import io.metaroce.client.Publication;
import io.metaroce.client.Subscription;
import io.metaroce.datapath.security.X25519;
import io.metaroce.driver.MediaDriver;
import io.metaroce.driver.ThreadingMode;
import io.metaroce.driver.security.DriverKeyFile;
import io.metaroce.samples.PrometheusExporter;
import org.agrona.CloseHelper;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every metric a panel of the Grafana dashboard or a Prometheus rule of the distribution reads is one the exporter
 * serves: the names are taken from the queries, and the served ones from a scrape of a real exporter over an embedded
 * driver with an IPC stream and a two-plane UDP stream with per-path counters, authenticated to the driver itself
 * (so every family of a connection is there, its authentication's too). A name of the form {@code metaroce:...}
 * must be recorded by the rules file.
 */
class MonitoringMetricNamesTest
{
    @Test
    void shouldFindTheMetricNamesOfAnExpression()
    {
        assertEquals(Set.of("a_total", "b_bytes", "metaroce:c"), MonitoringFiles.metricNames(
            "sum by (x, y) (rate(a_total{z=\"q\", w=~\"$v\"}[$__rate_interval])) / ignoring (r) group_right " +
            "b_bytes > 0.5 and on (x) metaroce:c offset 5m or time() - 1e3"));
    }

    @Test
    void shouldQueryOnlyMetricsTheExporterServes()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        {
            final Set<String> served = servedNames();
            final Set<String> recorded = MonitoringFiles.recordedNames();
            final Map<String, String> unknown = new TreeMap<>();
            int checked = 0;
            for (final String query : MonitoringFiles.dashboardQueries())
            {
                checked += check(query, "the dashboard", served, recorded, unknown);
            }
            for (final String expression : MonitoringFiles.ruleExpressions())
            {
                checked += check(expression, "the rules", served, recorded, unknown);
            }

            assertTrue(unknown.isEmpty(), "queried but not served: " + unknown + "\nserved: " + served);
            assertTrue(checked > 50, "only " + checked + " names checked");
        });
    }

    private static int check(
        final String query,
        final String where,
        final Set<String> served,
        final Set<String> recorded,
        final Map<String, String> unknown)
    {
        final Set<String> names = MonitoringFiles.metricNames(query);
        assertTrue(!names.isEmpty(), "no metric in " + where + ": " + query);
        for (final String name : names)
        {
            if (!(name.contains(":") ? recorded.contains(name) : served.contains(name)))
            {
                unknown.put(name, where + ": " + query);
            }
        }

        return names.size();
    }

    private static Set<String> servedNames() throws Exception
    {
        final String base = new File("/dev/shm").isDirectory() ? "/dev/shm" : System.getProperty("java.io.tmpdir");
        final File directory = new File(base, "metaroce-monitoring-test-" + UUID.randomUUID());
        MediaDriver driver = null;
        MetaRoce client = null;
        PrometheusExporter exporter = null;
        final Path keys = Files.createTempDirectory("metaroce-monitoring-keys");
        final Path keyFile = keys.resolve("driver.key");
        final Path peersFile = keys.resolve("driver.peers");
        try
        {
            final byte[] privateKey = X25519.newPrivateKey(new SecureRandom());
            final byte[] publicKey = new byte[X25519.KEY_LENGTH];
            new X25519().publicKey(privateKey, publicKey, 0);
            DriverKeyFile.writeNewPrivateKey(keyFile, privateKey);
            Files.writeString(peersFile, DriverKeyFile.encode(publicKey) + " self\n", StandardCharsets.US_ASCII);
            driver = MediaDriver.launch(new MediaDriver.Context()
                .authKeyFile(keyFile.toString())
                .trustedPeersFile(peersFile.toString())
                .directoryName(directory.getPath())
                .dirDeleteOnShutdown(true)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new SleepingIdleStrategy(TimeUnit.MICROSECONDS.toNanos(100)))
                .ipcTermLength(64 * 1024)
                .termSparseFile(true)
                .countersBufferLength(256 * 1024)
                .errorBufferLength(64 * 1024));
            client = MetaRoce.connect(new MetaRoce.Context()
                .directoryName(driver.directoryName())
                .idleStrategy(new SleepingIdleStrategy(TimeUnit.MILLISECONDS.toNanos(1))));

            final int port = freePort();
            final String endpoints = "127.0.0.2:" + port + ",127.0.0.3:" + port;
            final Subscription udpSubscription = client.addSubscription(
                "metaroce:udp?endpoint=" + endpoints + "|entropy=2", 1002);
            final Publication udpPublication = client.addPublication(
                "metaroce:udp?endpoint=" + endpoints +
                "|interface=127.0.1.1,127.0.1.2|entropy=2|path-counters=true|auth-peer=self",
                1002);
            final Publication ipcPublication = client.addPublication("metaroce:ipc", 1001);
            final Subscription ipcSubscription = client.addSubscription("metaroce:ipc", 1001);
            exchange(udpPublication, udpSubscription);
            exchange(ipcPublication, ipcSubscription);

            exporter = PrometheusExporter.start(directory, InetAddress.getLoopbackAddress(), 0,
                SystemEpochClock.INSTANCE, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            final HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + exporter.port() + "/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertEquals(200, response.statusCode(), response.body());

            final Set<String> names = new TreeSet<>();
            for (final String line : response.body().split("\n"))
            {
                if (!line.isEmpty() && !line.startsWith("#"))
                {
                    names.add(line.substring(0, indexOfAny(line, '{', ' ')));
                }
            }
            assertTrue(names.contains("metaroce_path_state") && names.contains("metaroce_sender_streams") &&
                names.contains("metaroce_receiver_state") && names.contains("metaroce_sender_auth_state"),
                names.toString());
            return names;
        }
        finally
        {
            CloseHelper.quietCloseAll(exporter, client, driver);
            Files.deleteIfExists(keyFile);
            Files.deleteIfExists(peersFile);
            Files.deleteIfExists(keys);
        }
    }

    private static void exchange(final Publication publication, final Subscription subscription)
        throws InterruptedException
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final AtomicInteger received = new AtomicInteger();
        int sent = 0;
        while (received.get() < 10)
        {
            if (sent < 10 && publication.offer(message, 0, message.capacity()) > 0)
            {
                sent++;
            }
            if (0 == subscription.poll((buffer, offset, length, header) -> received.incrementAndGet(), 10))
            {
                TimeUnit.MICROSECONDS.sleep(100);
            }
        }
    }

    /**
     * A UDP port free on both loopback planes the stream uses.
     */
    private static int freePort() throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            try (DatagramSocket first = new DatagramSocket(
                new InetSocketAddress(InetAddress.getByName("127.0.0.2"), 0)))
            {
                final int port = first.getLocalPort();
                new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.3"), port)).close();
                return port;
            }
            catch (final IOException ex)
            {
                continue;
            }
        }

        throw new IOException("no UDP port free on 127.0.0.2 and 127.0.0.3");
    }

    private static int indexOfAny(final String line, final char first, final char second)
    {
        final int a = line.indexOf(first);
        final int b = line.indexOf(second);
        return a < 0 ? b : b < 0 ? a : Math.min(a, b);
    }
}
