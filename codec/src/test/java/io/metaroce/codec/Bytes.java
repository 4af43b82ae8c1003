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
package io.metaroce.codec;

import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * Copies of byte arrays with one little-endian field overwritten, for building malformed messages.
 */
final class Bytes
{
    private Bytes()
    {
    }

    static byte[] withByte(final byte[] bytes, final int offset, final int value)
    {
        final byte[] copy = bytes.clone();
        copy[offset] = (byte)value;
        return copy;
    }

    static byte[] withShort(final byte[] bytes, final int offset, final int value)
    {
        final byte[] copy = bytes.clone();
        new UnsafeBuffer(copy).putShort(offset, (short)value, ByteOrder.LITTLE_ENDIAN);
        return copy;
    }

    static byte[] withInt(final byte[] bytes, final int offset, final int value)
    {
        final byte[] copy = bytes.clone();
        new UnsafeBuffer(copy).putInt(offset, value, ByteOrder.LITTLE_ENDIAN);
        return copy;
    }
}
