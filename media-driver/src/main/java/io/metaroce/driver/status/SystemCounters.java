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
package io.metaroce.driver.status;

import io.metaroce.client.status.CounterTypeId;
import io.metaroce.codec.RejectReason;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import java.util.EnumMap;

/**
 * The driver's system counters, allocated at start, plus one counter per reason a command was rejected for and one
 * per reason an image log was refused for, each allocated the first time its reason occurs so that {@code stat}
 * shows only the reasons seen.
 * <p>
 * Allocation runs on the conductor (or at start); incrementing is thread safe.
 */
public final class SystemCounters implements AutoCloseable
{
    /**
     * Reason code for a record whose type id differs from the template id of the message it carries.
     */
    public static final int RECORD_TYPE_MISMATCH = RejectReason.COUNT;

    /**
     * Reason code for an event (template id 101 to 199) found on the to-driver ring.
     */
    public static final int WRONG_DIRECTION = RejectReason.COUNT + 1;

    /**
     * Image log refused: the file system has too little usable space for it, or ran out while it was being filled.
     */
    public static final int IMAGE_LOG_INSUFFICIENT_STORAGE = 0;

    /**
     * Image log refused: creating it would leave less usable space than the storage reserve kept for local clients.
     */
    public static final int IMAGE_LOG_STORAGE_RESERVE = 1;

    /**
     * Image log refused: its file could not be created or mapped for another reason (in the error log).
     */
    public static final int IMAGE_LOG_CREATION_ERROR = 2;

    private static final String[] IMAGE_LOG_REFUSAL_NAMES =
        { "INSUFFICIENT_STORAGE", "STORAGE_RESERVE", "CREATION_ERROR" };

    private final CountersManager countersManager;
    private final EnumMap<SystemCounterDescriptor, AtomicCounter> counterByDescriptor =
        new EnumMap<>(SystemCounterDescriptor.class);
    private final AtomicCounter[] malformedCommandsByReason = new AtomicCounter[WRONG_DIRECTION + 1];
    private final AtomicCounter[] imageLogsRefusedByReason = new AtomicCounter[IMAGE_LOG_REFUSAL_NAMES.length];
    private final UnsafeBuffer keyBuffer = new UnsafeBuffer(new byte[Integer.BYTES]);

    /**
     * Allocate every system counter.
     *
     * @param countersManager of the driver.
     */
    public SystemCounters(final CountersManager countersManager)
    {
        this.countersManager = countersManager;
        for (final SystemCounterDescriptor descriptor : SystemCounterDescriptor.values())
        {
            counterByDescriptor.put(descriptor, newCounter(descriptor.id(), descriptor.label()));
        }
    }

    /**
     * Counter of a descriptor.
     *
     * @param descriptor of the counter.
     * @return the counter.
     */
    public AtomicCounter get(final SystemCounterDescriptor descriptor)
    {
        return counterByDescriptor.get(descriptor);
    }

    /**
     * Counter of commands rejected for a reason, allocated on first use.
     *
     * @param reason a {@link RejectReason} code, {@link #RECORD_TYPE_MISMATCH} or {@link #WRONG_DIRECTION}.
     * @return the counter, or null if the counters file is full.
     */
    public AtomicCounter malformedCommands(final int reason)
    {
        final int index = reason > 0 && reason <= WRONG_DIRECTION ? reason : 0;
        AtomicCounter counter = malformedCommandsByReason[index];
        if (null == counter && countersManager.available() > 0)
        {
            counter = newCounter(
                SystemCounterDescriptor.MALFORMED_COMMAND_REASON_KEY_BASE + index,
                "Malformed commands: " + reasonName(index));
            malformedCommandsByReason[index] = counter;
        }

        return counter;
    }

    /**
     * Counter of image logs refused for a reason, allocated on first use with the label
     * {@code Image logs refused: <reason name>} and the key
     * {@link SystemCounterDescriptor#IMAGE_LOGS_REFUSED_REASON_KEY_BASE} plus the reason.
     *
     * @param reason {@link #IMAGE_LOG_INSUFFICIENT_STORAGE}, {@link #IMAGE_LOG_STORAGE_RESERVE} or
     *               {@link #IMAGE_LOG_CREATION_ERROR}.
     * @return the counter, or null if the counters file is full.
     */
    public AtomicCounter imageLogsRefused(final int reason)
    {
        AtomicCounter counter = imageLogsRefusedByReason[reason];
        if (null == counter && countersManager.available() > 0)
        {
            counter = newCounter(
                SystemCounterDescriptor.IMAGE_LOGS_REFUSED_REASON_KEY_BASE + reason,
                "Image logs refused: " + imageLogRefusalName(reason));
            imageLogsRefusedByReason[reason] = counter;
        }

        return counter;
    }

    /**
     * Name of a reason an image log was refused for.
     *
     * @param reason {@link #IMAGE_LOG_INSUFFICIENT_STORAGE}, {@link #IMAGE_LOG_STORAGE_RESERVE} or
     *               {@link #IMAGE_LOG_CREATION_ERROR}.
     * @return its name, as used in counter labels.
     */
    public static String imageLogRefusalName(final int reason)
    {
        return IMAGE_LOG_REFUSAL_NAMES[reason];
    }

    /**
     * Name of a reason a command was rejected for.
     *
     * @param reason a {@link RejectReason} code, {@link #RECORD_TYPE_MISMATCH} or {@link #WRONG_DIRECTION}.
     * @return its name, as used in counter labels and error messages.
     */
    public static String reasonName(final int reason)
    {
        if (RECORD_TYPE_MISMATCH == reason)
        {
            return "RECORD_TYPE_MISMATCH";
        }

        if (WRONG_DIRECTION == reason)
        {
            return "WRONG_DIRECTION";
        }

        return RejectReason.name(reason);
    }

    /**
     * Free every counter.
     */
    public void close()
    {
        for (final AtomicCounter counter : counterByDescriptor.values())
        {
            counter.close();
        }

        for (final AtomicCounter counter : malformedCommandsByReason)
        {
            if (null != counter)
            {
                counter.close();
            }
        }

        for (final AtomicCounter counter : imageLogsRefusedByReason)
        {
            if (null != counter)
            {
                counter.close();
            }
        }
    }

    private AtomicCounter newCounter(final int key, final String label)
    {
        keyBuffer.putInt(0, key);
        final UnsafeBuffer labelBuffer = new UnsafeBuffer(label.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return countersManager.newCounter(
            CounterTypeId.SYSTEM_COUNTER, keyBuffer, 0, Integer.BYTES, labelBuffer, 0, labelBuffer.capacity());
    }
}
