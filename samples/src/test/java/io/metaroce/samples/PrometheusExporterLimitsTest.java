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
package io.metaroce.samples;

import org.agrona.CloseHelper;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exporter's HTTP limits and protocol over real sockets: read and idle timeouts, the connection bound, and the
 * answers to requests that are not a plain scrape. No driver runs (the exporter then serves {@code metaroce_up 0});
 * the scrape under load against a running driver is in {@link PrometheusExporterTest}. Every wait is a blocking read
 * with a timeout; the bounds are generous next to the timeouts under test.
 */
class PrometheusExporterLimitsTest
{
    private static final String SCRAPE = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    private static final String HALF_SENT = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nAcc";

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    @AfterEach
    void tearDown()
    {
        for (int i = resources.size() - 1; i >= 0; i--)
        {
            CloseHelper.quietClose(resources.get(i));
        }
    }

    @Test
    void shouldCloseConnectionWhenRequestIsNotCompleteWithinReadTimeout()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final PrometheusExporter exporter = startExporter(300, 30_000, 8);
            final Socket halfSent = connect(exporter);
            final Socket silent = connect(exporter);
            final long startNs = System.nanoTime();
            send(halfSent, HALF_SENT);

            assertTrue(closedWithin(halfSent, 5_000), "a half-sent request is closed");
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs >= 200, "closed by the timeout, not at once: " + elapsedMs + " ms");
            assertTrue(closedWithin(silent, 5_000), "a connection that sends nothing is closed too");

            // A byte every 100 ms does not extend the time a request has.
            final Socket trickle = connect(exporter);
            trickle.setSoTimeout(100);
            boolean closed = false;
            for (int i = 0; i < 50 && !closed; i++)
            {
                closed = trickleByte(trickle, HALF_SENT.charAt(i % HALF_SENT.length()));
            }
            assertTrue(closed, "a request trickled in stays bound by the read timeout");

            assertEquals(200, request(connect(exporter), SCRAPE).status, "and the exporter still serves");
        });
    }

    @Test
    void shouldCloseKeepAliveConnectionWhenIdleLongerThanIdleTimeout()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final PrometheusExporter exporter = startExporter(5_000, 300, 8);
            final Socket socket = connect(exporter);
            final Response first = request(socket, SCRAPE);
            assertEquals(200, first.status);
            assertEquals(null, first.headers.get("connection"), "kept alive");
            assertEquals(200, request(socket, SCRAPE).status, "a second request on the same connection");

            final long startNs = System.nanoTime();
            assertTrue(closedWithin(socket, 5_000), "an idle keep-alive connection is closed");
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs >= 200, "after the idle timeout: " + elapsedMs + " ms");
        });
    }

    @Test
    void shouldCloseLongestWaitingConnectionsWhenOverMaxConnectionsAndRecoverWhenTheyGo()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final int maxConnections = 4;
            // A read timeout far beyond the test, so only the bound can close a connection.
            final PrometheusExporter exporter = startExporter(60_000, 60_000, maxConnections);
            final List<Socket> first = halfSentRequests(exporter, maxConnections);
            final List<Socket> second = halfSentRequests(exporter, maxConnections);

            for (final Socket socket : first)
            {
                assertTrue(closedWithin(socket, 5_000), "one beyond the bound closes the longest waiting");
            }
            for (final Socket socket : second)
            {
                assertFalse(closedWithin(socket, 100), "the newer ones stay within the bound");
            }

            final Response underLoad = request(connect(exporter), SCRAPE);
            assertEquals(200, underLoad.status, "a scrape gets through while slow clients fill the bound");
            assertTrue(underLoad.text().contains("metaroce_up 0"), underLoad.text());

            for (final Socket socket : second)
            {
                socket.close();
            }
            final List<Socket> clients = new ArrayList<>();
            for (int i = 0; i < maxConnections; i++)
            {
                final Socket client = connect(exporter);
                assertEquals(200, request(client, SCRAPE).status);
                clients.add(client);
            }
            for (final Socket client : clients)
            {
                assertEquals(200, request(client, SCRAPE).status, "the bound holds that many keep-alive clients");
            }
        });
    }

    @Test
    void shouldAnswerByTheProtocolWhenRequestIsNotAPlainScrape()
    {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () ->
        {
            final PrometheusExporter exporter = startExporter(5_000, 30_000, 8);
            final Socket socket = connect(exporter);

            final Response healthy = request(socket, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, healthy.status);
            assertEquals("Exporter is healthy.\n", healthy.text());

            final Response head = request(socket, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, head.status);
            assertTrue(Integer.parseInt(head.headers.get("content-length")) > 0, head.headers.toString());
            assertEquals(0, head.body.length);

            final Response notFound = request(socket, "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(404, notFound.status);
            final Response post = request(socket, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
            assertEquals(405, post.status);
            assertEquals("GET, HEAD", post.headers.get("allow"));

            // Two requests in one write: two responses, in order, on the connection still open.
            send(socket, "GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics?name[]=metaroce_up HTTP/1.1\r\n" +
                "Host: x\r\n\r\n");
            assertEquals("Exporter is healthy.\n", readResponse(socket, false).text());
            final Response filtered = readResponse(socket, false);
            assertTrue(filtered.text().startsWith("# HELP metaroce_up"), filtered.text());

            final Response prometheus = request(socket, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: " +
                "application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.3,*/*;q=0.2\r\n" +
                "Accept-Encoding: gzip\r\n\r\n");
            assertTrue(prometheus.headers.get("content-type").startsWith("application/openmetrics-text"),
                prometheus.headers.toString());
            assertEquals("gzip", prometheus.headers.get("content-encoding"));
            final String unzipped = new String(
                new GZIPInputStream(new ByteArrayInputStream(prometheus.body)).readAllBytes(),
                StandardCharsets.UTF_8);
            assertTrue(unzipped.contains("metaroce_up 0") && unzipped.endsWith("# EOF\n"), unzipped);

            final Response http10 = request(connect(exporter), "GET /metrics HTTP/1.0\r\n\r\n");
            assertEquals(200, http10.status);
            assertEquals("close", http10.headers.get("connection"));

            final Socket oversized = connect(exporter);
            final Response tooLarge = request(oversized, "GET /metrics HTTP/1.1\r\nX: " + "a".repeat(9000));
            assertEquals(431, tooLarge.status);
            assertTrue(closedWithin(oversized, 5_000));

            assertEquals(400, request(connect(exporter), "GET /metrics HTTP/2.0\r\n\r\n").status);
        });
    }

    private PrometheusExporter startExporter(
        final long readTimeoutMs, final long idleTimeoutMs, final int maxConnections) throws IOException
    {
        final PrometheusExporter exporter = PrometheusExporter.start(
            new File(System.getProperty("java.io.tmpdir"), "metaroce-no-driver-" + UUID.randomUUID()),
            InetAddress.getLoopbackAddress(), 0, readTimeoutMs, idleTimeoutMs, maxConnections,
            StreamAggregation.STREAM, SystemEpochClock.INSTANCE, new PrintStream(log, true, StandardCharsets.UTF_8));
        resources.add(exporter);
        return exporter;
    }

    private Socket connect(final PrometheusExporter exporter) throws IOException
    {
        final Socket socket = new Socket(InetAddress.getLoopbackAddress(), exporter.port());
        resources.add(socket);
        return socket;
    }

    private List<Socket> halfSentRequests(final PrometheusExporter exporter, final int count) throws IOException
    {
        final List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            final Socket socket = connect(exporter);
            send(socket, HALF_SENT);
            sockets.add(socket);
        }

        return sockets;
    }

    private static void send(final Socket socket, final String text) throws IOException
    {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * Whether the exporter closes the connection within the time: end of stream, or a reset.
     */
    private static boolean closedWithin(final Socket socket, final int timeoutMs) throws IOException
    {
        socket.setSoTimeout(timeoutMs);
        try
        {
            return -1 == socket.getInputStream().read();
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            return true;
        }
    }

    /**
     * Send one byte and wait up to the socket's timeout for the exporter to close the connection.
     */
    private static boolean trickleByte(final Socket socket, final char value)
    {
        try
        {
            socket.getOutputStream().write(value);
            return -1 == socket.getInputStream().read();
        }
        catch (final SocketTimeoutException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            return true;
        }
    }

    private static Response request(final Socket socket, final String request) throws IOException
    {
        send(socket, request);
        return readResponse(socket, request.startsWith("HEAD "));
    }

    private static Response readResponse(final Socket socket, final boolean head) throws IOException
    {
        socket.setSoTimeout(10_000);
        final InputStream in = socket.getInputStream();
        final String statusLine = readLine(in);
        final Map<String, String> headers = new HashMap<>();
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in))
        {
            final int colon = line.indexOf(':');
            headers.put(line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
        }
        final int length = head ? 0 : Integer.parseInt(headers.get("content-length"));

        return new Response(Integer.parseInt(statusLine.split(" ")[1]), headers, in.readNBytes(length));
    }

    private static String readLine(final InputStream in) throws IOException
    {
        final StringBuilder line = new StringBuilder();
        for (int b = in.read(); b != '\n'; b = in.read())
        {
            if (b < 0)
            {
                throw new IOException("connection closed after: " + line);
            }
            if (b != '\r')
            {
                line.append((char)b);
            }
        }

        return line.toString();
    }

    private static final class Response
    {
        final int status;
        final Map<String, String> headers;
        final byte[] body;

        Response(final int status, final Map<String, String> headers, final byte[] body)
        {
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        String text()
        {
            return new String(body, StandardCharsets.UTF_8);
        }
    }
}
