// Outside Windows: the few Windows SDK declarations that Microsoft's DirectML.h takes
// from "d3d12.h" (and, through it, <windows.h>), so that the real DirectML.h compiles on
// Linux for tests/directml/real_header.cpp. Nothing of DirectML is declared here.
//
// The base types have their Windows (LLP64) sizes. COM interfaces become plain structs
// with virtual functions, SAL annotations vanish, and the D3D12 types DirectML.h only
// points at are left incomplete. The HRESULT codes are deliberately absent: DirectML.h
// does not use them, so tally's own definitions are the ones tested here (the MinGW
// stage tests them against the SDK's winerror.h).
#pragma once

#include <cstddef>
#include <cstdint>

typedef std::uint8_t BYTE;
typedef std::int8_t INT8;
typedef std::uint8_t UINT8;
typedef std::int16_t INT16;
typedef std::uint16_t UINT16;
typedef std::int32_t INT32;
typedef std::uint32_t UINT32;
typedef std::int64_t INT64;
typedef std::uint64_t UINT64;
typedef int INT;
typedef unsigned int UINT;
typedef int BOOL;
typedef float FLOAT;
typedef double DOUBLE;
typedef std::size_t SIZE_T;
typedef std::int32_t LONG;  // 32 bits on Windows
typedef LONG HRESULT;
typedef const char16_t* PCWSTR;  // wchar_t is 16 bits on Windows

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

struct GUID {
  std::uint32_t Data1;
  std::uint16_t Data2, Data3;
  std::uint8_t Data4[8];
};
typedef const GUID& REFIID;
typedef const GUID& REFGUID;

// <winapifamily.h>: every API partition is available.
#define WINAPI_PARTITION_APP 0x2
#define WINAPI_PARTITION_GAMES 0x40
#define WINAPI_FAMILY_PARTITION(partitions) 1

// COM (<objbase.h>, <unknwn.h>).
#define interface struct
#define DECLSPEC_UUID(uuid)
#define DECLSPEC_NOVTABLE
#define STDMETHODCALLTYPE
#define IFACEMETHOD(method) virtual HRESULT STDMETHODCALLTYPE method
#define IFACEMETHOD_(type, method) virtual type STDMETHODCALLTYPE method
#define STDAPI extern "C" HRESULT
struct IUnknown {
  virtual HRESULT QueryInterface(REFIID riid, void** object) = 0;
  virtual unsigned long AddRef() = 0;
  virtual unsigned long Release() = 0;
};

// <winnt.h>: bitwise operators for a flags enum.
#define DEFINE_ENUM_FLAG_OPERATORS(T)                                                                 \
  inline constexpr T operator|(T a, T b) { return static_cast<T>(static_cast<int>(a) | static_cast<int>(b)); } \
  inline constexpr T operator&(T a, T b) { return static_cast<T>(static_cast<int>(a) & static_cast<int>(b)); } \
  inline constexpr T operator^(T a, T b) { return static_cast<T>(static_cast<int>(a) ^ static_cast<int>(b)); } \
  inline constexpr T operator~(T a) { return static_cast<T>(~static_cast<int>(a)); }                          \
  inline T& operator|=(T& a, T b) { return a = a | b; }                                                       \
  inline T& operator&=(T& a, T b) { return a = a & b; }                                                       \
  inline T& operator^=(T& a, T b) { return a = a ^ b; }

// <d3d12.h>: only pointed at, or passed by value.
struct ID3D12Device;
struct ID3D12Resource;
struct ID3D12CommandList;
struct D3D12_CPU_DESCRIPTOR_HANDLE {
  SIZE_T ptr;
};
struct D3D12_GPU_DESCRIPTOR_HANDLE {
  UINT64 ptr;
};

// <sal.h>: source annotations, empty.
#define _In_
#define _In_opt_
#define _Inout_
#define _Maybenull_
#define _Field_z_
#define _COM_Outptr_
#define _COM_Outptr_opt_
#define _Field_size_(size)
#define _Field_size_opt_(size)
#define _Field_size_bytes_(size)
#define _In_reads_(size)
#define _In_reads_opt_(size)
#define _In_reads_bytes_opt_(size)
#define _Out_writes_bytes_(size)
#define _Out_writes_bytes_opt_(size)
#define _Inexpressible_(size)
