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
package io.metaroce.driver;

import io.metaroce.codec.wire.DataDecoder;
import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.datapath.io.LossGenerator;
import org.agrona.DirectBuffer;

import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The driver's injected packet loss, for tests, demos and fault drills: per plane, separate settings for DATA
 * datagrams and for control datagrams (everything else: SETUP, STREAM_OPEN, ACK, NACK, credit, probes, CLOSE, ...),
 * each a random drop rate (reproducible from a seed) and a fixed pattern (drop every n-th datagram). It is applied on
 * the receive side of every socket of the driver, before any validation, as if the network had lost the datagram.
 * <p>
 * Configured from the {@code metaroce.loss.*} properties of {@link Configuration} or through the setters; the
 * setters may be called at run time from any thread (the values are atomics read by the agents), which is how a
 * demo takes a plane down by setting its rates to 1.0. Each transport gets its own {@link #newStage(long)} with its
 * own random sequence, so stages never share mutable state across agent threads.
 */
public final class NetworkLossGenerator
{
    /**
     * Most planes a generator describes.
     */
    public static final int MAX_PLANES = 255;

    private static final int TEMPLATE_ID_OFFSET = MessageHeaderDecoder.templateIdEncodingOffset();
    private static final int DATA = 0;
    private static final int CONTROL = 1;

    private final AtomicLongArray rates = new AtomicLongArray(2 * MAX_PLANES);
    private final AtomicLongArray everyNth = new AtomicLongArray(2 * MAX_PLANES);
    private final long seed;

    /**
     * A generator that drops nothing until configured.
     *
     * @param seed of the random drops; each stage derives its own sequence from it.
     */
    public NetworkLossGenerator(final long seed)
    {
        this.seed = seed;
    }

    /**
     * The generator the {@code metaroce.loss.*} system properties describe, or null when they ask for no loss.
     *
     * @return the generator, or null.
     * @throws IllegalArgumentException naming the property when a value is malformed or out of range.
     */
    static NetworkLossGenerator fromSystemProperties()
    {
        // Read even when no loss is asked for, so that a malformed seed fails the start rather than a later run.
        final long seed = Configuration.lossSeed();
        final String dataRate = System.getProperty(Configuration.LOSS_DATA_RATE_PROP_NAME);
        final String controlRate = System.getProperty(Configuration.LOSS_CONTROL_RATE_PROP_NAME);
        final String dataEvery = System.getProperty(Configuration.LOSS_DATA_EVERY_PROP_NAME);
        final String controlEvery = System.getProperty(Configuration.LOSS_CONTROL_EVERY_PROP_NAME);
        if (null == dataRate && null == controlRate && null == dataEvery && null == controlEvery)
        {
            return null;
        }

        final NetworkLossGenerator generator = new NetworkLossGenerator(seed);
        final double[] dataRates = parseList(Configuration.LOSS_DATA_RATE_PROP_NAME, dataRate, true);
        final double[] controlRates = parseList(Configuration.LOSS_CONTROL_RATE_PROP_NAME, controlRate, true);
        final double[] dataEverys = parseList(Configuration.LOSS_DATA_EVERY_PROP_NAME, dataEvery, false);
        final double[] controlEverys = parseList(Configuration.LOSS_CONTROL_EVERY_PROP_NAME, controlEvery, false);
        for (int plane = 0; plane < MAX_PLANES; plane++)
        {
            generator.dataRate(plane, valueAt(dataRates, plane));
            generator.controlRate(plane, valueAt(controlRates, plane));
            generator.dataEveryNth(plane, (int)valueAt(dataEverys, plane));
            generator.controlEveryNth(plane, (int)valueAt(controlEverys, plane));
        }

        return generator;
    }

    /**
     * Seed of the random drops.
     *
     * @return the seed.
     */
    public long seed()
    {
        return seed;
    }

    /**
     * Random drop rate of DATA datagrams arriving on a plane.
     *
     * @param plane index.
     * @param rate  in [0, 1]; 1 takes the plane's data down.
     * @return this for a fluent API.
     */
    public NetworkLossGenerator dataRate(final int plane, final double rate)
    {
        rates.set(index(DATA, plane), Double.doubleToRawLongBits(checkRate(rate)));
        return this;
    }

    /**
     * Random drop rate of control datagrams arriving on a plane.
     *
     * @param plane index.
     * @param rate  in [0, 1].
     * @return this for a fluent API.
     */
    public NetworkLossGenerator controlRate(final int plane, final double rate)
    {
        rates.set(index(CONTROL, plane), Double.doubleToRawLongBits(checkRate(rate)));
        return this;
    }

    /**
     * Fixed pattern for DATA datagrams arriving on a plane: drop every n-th one.
     *
     * @param plane index.
     * @param n     0 for none, otherwise at least 1 (1 drops them all).
     * @return this for a fluent API.
     */
    public NetworkLossGenerator dataEveryNth(final int plane, final int n)
    {
        everyNth.set(index(DATA, plane), checkEvery(n));
        return this;
    }

    /**
     * Fixed pattern for control datagrams arriving on a plane: drop every n-th one.
     *
     * @param plane index.
     * @param n     0 for none, otherwise at least 1.
     * @return this for a fluent API.
     */
    public NetworkLossGenerator controlEveryNth(final int plane, final int n)
    {
        everyNth.set(index(CONTROL, plane), checkEvery(n));
        return this;
    }

    /**
     * Take a plane down (every datagram arriving on it is dropped) or bring it back (no loss).
     *
     * @param plane  index.
     * @param isDown true to drop everything.
     * @return this for a fluent API.
     */
    public NetworkLossGenerator planeDown(final int plane, final boolean isDown)
    {
        final double rate = isDown ? 1.0 : 0.0;
        return dataRate(plane, rate).controlRate(plane, rate);
    }

    /**
     * A drop stage for one transport, with its own random sequence and pattern counters: confine it to the thread
     * that polls the transport.
     *
     * @param stageId distinguishes the stages of one driver; mixed into the seed.
     * @return the stage.
     */
    public LossGenerator newStage(final long stageId)
    {
        return new Stage(this, new SplittableRandom(seed * 31 + stageId));
    }

    private double rate(final int kind, final int plane)
    {
        return Double.longBitsToDouble(rates.get(index(kind, plane)));
    }

    private long everyNth(final int kind, final int plane)
    {
        return everyNth.get(index(kind, plane));
    }

    private static int index(final int kind, final int plane)
    {
        if (plane < 0 || plane >= MAX_PLANES)
        {
            throw new IllegalArgumentException("plane must be in [0, " + MAX_PLANES + "): " + plane);
        }

        return kind * MAX_PLANES + plane;
    }

    private static double checkRate(final double rate)
    {
        if (!(rate >= 0.0 && rate <= 1.0))
        {
            throw new IllegalArgumentException("loss rate must be in [0, 1]: " + rate);
        }

        return rate;
    }

    private static int checkEvery(final int n)
    {
        if (n < 0)
        {
            throw new IllegalArgumentException("every-n-th pattern must be >= 0: " + n);
        }

        return n;
    }

    private static double[] parseList(final String name, final String value, final boolean isRate)
    {
        if (null == value || value.isBlank())
        {
            return new double[0];
        }

        final String[] parts = value.split(",", -1);
        if (parts.length > MAX_PLANES)
        {
            throw new IllegalArgumentException(name + " must list at most " + MAX_PLANES + " planes: " + value);
        }

        final double[] values = new double[parts.length];
        for (int i = 0; i < parts.length; i++)
        {
            double element = Double.NaN;
            try
            {
                element = Double.parseDouble(parts[i].trim());
            }
            catch (final NumberFormatException ignore)
            {
                // refused below
            }

            final boolean isValid = isRate ? element >= 0.0 && element <= 1.0 :
                element >= 0.0 && element <= Integer.MAX_VALUE && element == Math.rint(element);
            if (!isValid)
            {
                // The whole value as given, once: the plane's index says which element is wrong.
                throw new IllegalArgumentException(name + " must be " + (isRate ? "a rate in [0, 1]" :
                    "a whole number n >= 0 (drop every n-th, 0 for none)") + " per plane, comma-separated (plane " +
                    i + "'s is not): " + value);
            }
            values[i] = element;
        }

        return values;
    }

    private static double valueAt(final double[] values, final int plane)
    {
        return plane < values.length ? values[plane] : 0.0;
    }

    private static final class Stage implements LossGenerator
    {
        private final NetworkLossGenerator generator;
        private final SplittableRandom random;
        private final long[] counts = new long[2 * MAX_PLANES];

        Stage(final NetworkLossGenerator generator, final SplittableRandom random)
        {
            this.generator = generator;
            this.random = random;
        }

        public boolean shouldDrop(final DirectBuffer buffer, final int offset, final int length, final int plane)
        {
            if (plane < 0 || plane >= MAX_PLANES)
            {
                return false;
            }

            final boolean isData = length > TEMPLATE_ID_OFFSET + 1 && DataDecoder.TEMPLATE_ID ==
                (buffer.getShort(offset + TEMPLATE_ID_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF);
            final int kind = isData ? DATA : CONTROL;
            final long n = generator.everyNth(kind, plane);
            if (n > 0 && 0 == (++counts[index(kind, plane)] % n))
            {
                return true;
            }

            final double rate = generator.rate(kind, plane);
            return rate > 0.0 && (rate >= 1.0 || random.nextDouble() < rate);
        }
    }
}
