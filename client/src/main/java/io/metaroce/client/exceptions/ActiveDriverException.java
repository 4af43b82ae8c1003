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
package io.metaroce.client.exceptions;

/**
 * A media driver refused to start because another driver is alive in the same directory: its CnC heartbeat is
 * younger than the driver timeout. The message names the directory.
 */
public final class ActiveDriverException extends MetaRoceException
{
    private static final long serialVersionUID = 6414587013214561384L;

    /**
     * Create an exception.
     *
     * @param message naming the directory and the live driver.
     */
    public ActiveDriverException(final String message)
    {
        super(message);
    }
}
