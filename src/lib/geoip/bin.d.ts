// The generated table file, imported `with { type: 'file' }`: Bun gives its path (inside the executable
// once compiled).
declare module '*.bin' {
  const path: string
  export default path
}
