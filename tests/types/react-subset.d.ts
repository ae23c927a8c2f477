// The part of React's API js/react.mjs uses, typed for this repository's `tsc` runs: the repo
// has React 19 but not @types/react (a React TypeScript app has it; js/react.d.ts imports its
// types from 'react'). Loaded by tsconfig.json and tests/types/tsconfig.json only; never shipped.
declare module 'react' {
  export type ReactNode = unknown;
  export interface ReactElement { type: unknown; props: unknown; key: string | null }
  export interface Context<T> { Provider: unknown; readonly _value?: T }
  export function createContext<T>(value: T): Context<T>;
  export const StrictMode: unknown;
  export function createElement(type: unknown, props?: Record<string, unknown> | null, ...children: unknown[]): ReactElement;
  export function useContext<T>(context: Context<T>): T;
  export function useMemo<T>(make: () => T, deps: readonly unknown[]): T;
  export function useCallback<T extends (...args: never[]) => unknown>(callback: T, deps: readonly unknown[]): T;
  export function useState<T>(initial: T): [T, (next: T | ((previous: T) => T)) => void];
  export function useRef<T>(initial: T): { current: T };
  export function useInsertionEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
  export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void;
  export function useSyncExternalStore<T>(subscribe: (onChange: () => void) => () => void, getSnapshot: () => T, getServerSnapshot?: () => T): T;
}
